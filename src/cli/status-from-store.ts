/**
 * `statewright status` reading the store itself (no serve of it answers), or Restate: loaded only
 * then, with the store and the lifecycles its runs belong to (no runtime: it only reads).
 */
import type { Lifecycles } from '../../machines/lifecycle.js';
import { severalHostsShare } from '../explain/shared-hosts.js';
import { statusNote } from '../explain/status-note.js';
import { isProcessAlive } from '../os/process-identity.js';
import type { RestateRuntime } from '../restate/restate-runtime.js';
import { checkFilter } from '../runtime/call-arguments.js';
import type { RunSnapshot } from '../runtime/run-snapshot.js';
import { toRunSnapshot } from '../runtime/run-snapshot.js';
import { setAsideRunsIn } from '../runtime/set-aside.js';
import { runJson } from '../serve/run-json.js';
import type { RunFilter, Store } from '../stores/store.js';
import type { StatusFilter, StatusRun, StatusRuns } from './status-runs.js';
import { readStoreFor } from './with-runtime.js';

/**
 * `registry`: loaded with the lifecycles the store's runs belong to alone (their NOTE, whether
 * each can be restored), which the store counts first.
 */
export async function statusFromStore(
  store: () => Promise<Store>,
  registry: (needs: readonly string[]) => Promise<{ readonly machines: Lifecycles }>,
  filter: StatusFilter,
  hosts: readonly string[],
): Promise<StatusRuns> {
  const [runs, setAside, severalHosts, machines] = await readStoreFor(
    store,
    async (opened) => [...new Set((await opened.countByState()).groups.map((group) => group.machine))],
    registry,
    async (opened, machines) =>
      [
        // As the runtime's `list` reads them.
        (await opened.list(checkFilter(filter as RunFilter))).map(toRunSnapshot),
        // Only live runs are set aside.
        filter.status && filter.status !== 'active'
          ? []
          : (await setAsideRunsIn(opened, machines, Date.now())).filter(
              (r) => (!filter.machine || r.machine === filter.machine) && (!filter.state || r.state === filter.state),
            ),
        await severalHostsShare(opened, hosts),
        machines,
      ] as const,
  );
  const reasons = new Map(setAside.map((r) => [r.runId, r.reason]));
  return { runs: statusRuns(runs, machines, reasons), setAside, severalHosts };
}

export async function statusFromRestate(
  restate: RestateRuntime,
  machines: Lifecycles,
  filter: StatusFilter,
): Promise<StatusRuns> {
  return {
    runs: statusRuns(await restate.list(filter as RunFilter), machines, new Map()),
    setAside: [],
    severalHosts: false,
  };
}

function statusRuns(runs: readonly RunSnapshot[], machines: Lifecycles, reasons: Map<string, string>): StatusRun[] {
  const now = Date.now();
  return runs.map((run) => {
    const json = runJson(run, reasons.get(run.runId), now);
    return {
      json,
      note: () => statusNote(machines, run, now),
      ownerAlive: run.owner ? isProcessAlive(run.owner) : true,
      lease: json.lease,
    };
  });
}
