/**
 * The runs `statewright status` prints, wherever it read them: its own read of the store
 * (status-from-store.ts), a running serve's `GET /api/runs` (serve-reads.ts), or Restate.
 */
import type { HostLease } from '../explain/host-lease.js';
import type { RunJson } from '../serve/run-json.js';

export interface StatusRun {
  /** The run as `--json` prints it (`GET /api/runs/:id`'s shape). */
  readonly json: RunJson;
  /** The NOTE column's text (`statusNote`), asked for the shown runs only. */
  note(): string | undefined;
  /** Whether its owner's process lives (a process of another machine counts as alive). */
  readonly ownerAlive: boolean;
  readonly lease: HostLease | null;
}

/** A live run the registry cannot restore, and why. */
export interface StatusSetAside {
  readonly runId: string;
  readonly machine: string;
  readonly state: string;
  readonly version: number;
  readonly reason: string;
}

export interface StatusRuns {
  readonly runs: StatusRun[];
  readonly setAside: readonly StatusSetAside[];
  /** Several hosts share the store: the OWNER and lease columns are shown. */
  readonly severalHosts: boolean;
}

export interface StatusFilter {
  readonly machine?: string;
  readonly status?: string;
  readonly state?: string;
}
