/**
 * The reading commands (`status`, `explain`, `history`) through a running serve of the store:
 * asked over its HTTP API with the node:http client `send` and `start` use, so that they load no
 * runtime, no store and no lifecycle. Their output is the one they print reading the store
 * themselves; a serve that runs another config than the command reads is not asked
 * (config-agreement.ts), nor one that does not answer.
 */
import { callServer, runPath, type RunJson, type ServerTarget } from '../client/server-client.js';
import type { Explanation } from '../explain/explanation.js';
import type { HostLease } from '../explain/host-lease.js';
import { isProcessAlive } from '../os/process-identity.js';
import type { EventRecord } from '../stores/store.js';
import type { ServedHost } from './config-agreement.js';
import type { StatusFilter, StatusRuns, StatusSetAside } from './status-runs.js';

/** `GET /api/runs`'s largest page: a status of every run reads them all, as it does from the store. */
const PAGE = 1000;

interface ListedRun extends RunJson {
  readonly verdict?: string;
  readonly waitsForPerson?: boolean;
  readonly note?: string;
  readonly ownerAlive?: boolean;
}

/** Every run `filter` keeps, page by page, with the NOTE, the set-aside runs and the hosts as serve sees them. */
export async function statusThroughServe(
  server: ServerTarget,
  host: ServedHost,
  filter: StatusFilter,
  serverHostIds: readonly string[],
): Promise<StatusRuns> {
  const listed: ListedRun[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ ...filter, limit: String(PAGE), ...(cursor !== null && { cursor }) });
    const page: { runs: ListedRun[]; next: string | null } = await callServer(server, 'GET', `/api/runs?${query}`);
    listed.push(...page.runs);
    cursor = page.next;
  } while (cursor !== null);
  const runs = listed.map(({ verdict: _verdict, waitsForPerson: _waits, note, ownerAlive, ...json }) => ({
    json,
    note: () => note,
    ownerAlive: ownerAlive ?? (json.owner ? isProcessAlive(json.owner) : true),
    lease: json.lease as HostLease | null,
  }));
  // As the store lists its live runs (oldest first): the ones serve cannot restore.
  const setAside: StatusSetAside[] = listed
    .filter((r) => r.setAside !== undefined)
    .sort((a, b) => a.createdAt - b.createdAt || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0))
    .map((r) => ({
      runId: r.runId,
      machine: r.machine,
      state: r.state,
      version: r.version,
      reason: r.setAside!.reason,
    }));
  // The hosts holding runs (serve counts itself), and the serves whose files lie beside the store.
  const severalHosts = host.leases === true && ((host.hosts ?? 1) > 1 || new Set(serverHostIds).size > 1);
  return { runs, setAside, severalHosts };
}

export function explainThroughServe(server: ServerTarget, runId: string, verbose: boolean): Promise<Explanation> {
  return callServer(server, 'GET', `${runPath(runId)}/explain${verbose ? '?verbose=true' : ''}`);
}

/** A step of the trail as the store holds it, and its event and actor in words (`label`, `actorLabel`). */
export interface WordedEvent {
  readonly record: EventRecord;
  readonly label: string;
  readonly actorLabel: string | undefined;
}

export async function historyThroughServe(server: ServerTarget, runId: string): Promise<WordedEvent[]> {
  const { events } = await callServer<{
    events: Array<Omit<EventRecord, 'runId'> & { label: string; actorLabel?: string }>;
  }>(server, 'GET', `${runPath(runId)}/history`);
  // In the order the stores give an event's fields, as `history --json` prints them.
  return events.map(
    ({ seq, event, at, before, after, actor, reason, credential, idempotencyKey, label, actorLabel }) => ({
      record: {
        runId,
        seq,
        event,
        at,
        before,
        after,
        ...(actor !== undefined && { actor }),
        ...(reason !== undefined && { reason }),
        ...(credential !== undefined && { credential }),
        ...(idempotencyKey !== undefined && { idempotencyKey }),
      },
      label,
      actorLabel,
    }),
  );
}
