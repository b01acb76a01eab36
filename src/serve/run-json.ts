/** A run as the HTTP API shows it: its committed row read out, without the raw XState snapshot. */
import { hostLease, type HostLease } from '../explain/host-lease.js';
import type { RunSnapshot } from '../runtime/index.js';

export interface RunJson {
  readonly runId: string;
  readonly machine: string;
  readonly version: number;
  readonly status: string;
  readonly state: string;
  readonly seq: number;
  readonly value: unknown;
  readonly context: unknown;
  readonly input: unknown;
  readonly owner: { id: string; pid: number; host: string } | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** The host that holds (or last held) the run, on a store with leases; null when none ever did. */
  readonly lease: HostLease | null;
  /** The run's next deadline as its last commit indexed it (the runtime's clock); null when it has none. */
  readonly wakeAt: number | null;
  /** Present when the host cannot restore the run (see `Runtime.setAside`): why. */
  readonly setAside?: { readonly reason: string };
}

/** `now`: this machine's wall clock, for the lease's heartbeat age. */
export function runJson(run: RunSnapshot, setAsideReason?: string, now = Date.now()): RunJson {
  return {
    runId: run.runId,
    machine: run.machine,
    version: run.version,
    status: run.status,
    state: run.state,
    seq: run.seq,
    value: run.value,
    context: run.context,
    input: run.input ?? null,
    owner: run.owner ? { id: run.owner.id, pid: run.owner.pid, host: run.owner.host } : null,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    lease: run.lease ? hostLease(run.lease, now) : null,
    wakeAt: run.wakeAt ?? null,
    ...(setAsideReason !== undefined && { setAside: { reason: setAsideReason } }),
  };
}
