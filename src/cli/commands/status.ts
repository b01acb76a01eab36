/**
 * `statewright status`: the newest 30 runs (`--limit`, `--all`) as a table fitted to the terminal
 * (or `{"runs": [...]}` with --json): id, machine, state, status, events, last update; where
 * several hosts share the store (or with --verbose) the owner and the lease columns; a NOTE column
 * where a lifecycle says more of an active run than its state (`Lifecycle.statusNote`: a session
 * or codon whose agent is retrying; else whom a run in a `waitsFor` state waits for); how many
 * more there are; then the runs set aside.
 */
import { Command, Option } from 'commander';
import { RUN_STATUSES } from '../../runtime/call-arguments.js';
import type { HostLease } from '../../explain/host-lease.js';
import { span } from '../../explain/host-lease.js';
import type { Cli } from '../command.js';
import {
  engineOption,
  restateAdminOption,
  restateEngine,
  restateTokenOption,
  type EngineValues,
} from '../restate-engine.js';
import { createOption, storeOpener, storeOption } from '../open-store.js';
import { shownRunId } from '../shown-run-id.js';
import { wholeNumber } from '../whole-number.js';
import { agreeOnConfig } from '../config-agreement.js';
import { findServer, liveHostIds } from '../find-server.js';
import { type Column, tableLines, terminalWidth } from '../fit-table.js';
import { refuseMemoryStore } from '../memory-store-refusal.js';
import { statusThroughServe } from '../serve-reads.js';
import type { StatusRuns } from '../status-runs.js';

interface StatusOptions extends EngineValues {
  readonly store?: string;
  readonly create?: boolean;
  readonly machine?: string;
  readonly status?: string;
  readonly state?: string;
  readonly limit?: number;
  readonly all?: boolean;
  readonly json?: boolean;
  readonly verbose?: boolean;
}

/** How many runs `status` shows unless told: a screenful, as `gh` lists 30. */
export const STATUS_LIMIT = 30;

export const statusCommand = (cli: Cli) =>
  new Command('status')
    .summary(
      `list the newest ${STATUS_LIMIT} runs: id, machine, state, status, events applied, last update, and a note where a lifecycle has one (an agent retrying); where several hosts share the store, the owner, holder, epoch and last heartbeat`,
    )
    .option('--machine <machine>', 'only the runs of this lifecycle')
    .addOption(new Option('--status <status>', 'only the runs with this status').choices(RUN_STATUSES))
    .option('--state <state>', 'only the runs resting in this state (dotted for nested states)')
    .addOption(
      new Option('--limit <n>', `at most this many runs (${STATUS_LIMIT} unless given)`)
        .argParser(wholeNumber(1))
        .conflicts('all'),
    )
    .option('--all', 'every run')
    .option('--json', 'print {"runs": [...]} as the HTTP API lists them')
    .option('--verbose', 'the owner and the lease columns (holder, epoch, heartbeat) even when one host has the store')
    .addOption(storeOption())
    .addOption(createOption())
    .addOption(engineOption())
    .addOption(restateAdminOption())
    .addOption(restateTokenOption())
    .action(
      cli.exitsWith(async (values: StatusOptions) => {
        const filter = {
          ...(values.machine && { machine: values.machine }),
          ...(values.status && { status: values.status }),
          ...(values.state && { state: values.state }),
        };
        const restate = await restateEngine(values);
        if (!restate)
          refuseMemoryStore(
            values.store,
            'status',
            'it would read an empty store of its own, not the runs another process holds',
          );
        // Which runs are set aside depends on the config: said when a serve of this store runs another.
        const server = restate ? undefined : findServer(values);
        const agreed =
          server &&
          (await agreeOnConfig(server, cli.configFile(), (line) => cli.io.writeErr(`${line}\n`), { reading: true }));
        const hosts = liveHostIds(values.store);
        // Through that serve when it runs this config (it loads no store, runtime or lifecycle here), else read here.
        const { runs, setAside, severalHosts }: StatusRuns =
          (server && agreed && (await statusThroughServe(server, agreed, filter, hosts).catch(() => undefined))) ??
          (await statusHere(cli, values, filter, restate, hosts));
        runs.sort((a, b) => b.json.createdAt - a.json.createdAt || (a.json.runId < b.json.runId ? -1 : 1));
        const shown = values.all ? runs : runs.slice(0, values.limit ?? STATUS_LIMIT);
        if (values.json) {
          process.stdout.write(`${JSON.stringify({ runs: shown.map((r) => r.json) }, null, 2)}\n`);
          return 0;
        }
        if (shown.length === 0) {
          process.stdout.write('no runs\n');
          return 0;
        }
        const setAsideIds = new Set(setAside.map((r) => r.runId));
        // Hosts are spoken of where several share the store: one host's runs are all its own.
        const shownHosts = values.verbose || severalHosts;
        // The lease columns only where some run has a lease: a store without leases has one host.
        const leased = shownHosts && shown.some((r) => r.lease);
        const notes = shown.map((r) => r.note());
        const noted = notes.some((n) => n !== undefined);
        const rows = shown.map(({ json: r, ownerAlive, lease }, i) => [
          shownRunId(r.runId),
          r.machine,
          r.state,
          r.status,
          String(r.seq),
          new Date(r.updatedAt).toISOString(),
          ...(shownHosts ? [r.owner ? `${r.owner.host}:${r.owner.pid}${ownerAlive ? '' : ' (gone)'}` : '-'] : []),
          ...(leased ? leaseColumns(lease, setAsideIds.has(r.runId)) : []),
          ...(noted ? [notes[i] ?? ''] : []),
        ]);
        printTable(
          [
            { header: 'RUN', cut: 'middle', min: 16 },
            { header: 'MACHINE' },
            { header: 'STATE', cut: 'middle', min: 12 },
            { header: 'STATUS', cut: 'never' },
            { header: 'EVENTS', cut: 'never' },
            { header: 'UPDATED', cut: 'never' },
            ...(shownHosts ? [{ header: 'OWNER', cut: 'middle' } as const] : []),
            ...(leased
              ? ([
                  { header: 'HOLDER', cut: 'middle' },
                  { header: 'EPOCH', cut: 'never' },
                  { header: 'HEARTBEAT' },
                ] as const)
              : []),
            ...(noted ? [{ header: 'NOTE', min: 20 } as const] : []),
          ],
          rows,
        );
        const more = runs.length - shown.length;
        if (more > 0)
          process.stdout.write(
            `${more} more ${more === 1 ? 'run' : 'runs'} (${runs.length} in all): --limit <n> shows the newest n, --all every run\n`,
          );
        if (setAside.length) {
          process.stdout.write(
            `\n${setAside.length} set aside: the registry cannot restore ${setAside.length === 1 ? 'it' : 'them'}. Add the machine, or a migration to its version, to your lifecycles (statewright.config.ts) and restart, or end one with \`statewright end <run> --reason ...\`.\n`,
          );
          printTable(
            [
              { header: 'RUN', cut: 'middle', min: 16 },
              { header: 'MACHINE' },
              { header: 'STATE', cut: 'middle', min: 12 },
              { header: 'VERSION', cut: 'never' },
              { header: 'REASON', min: 20 },
            ],
            setAside.map((r) => [shownRunId(r.runId), r.machine, r.state, `v${r.version}`, r.reason]),
          );
        }
        return 0;
      }),
    );

/** The runs read here: from the store (no serve of it answers, or it runs another config), or from Restate. */
async function statusHere(
  cli: Cli,
  values: StatusOptions,
  filter: { machine?: string; status?: string; state?: string },
  restate: Awaited<ReturnType<typeof restateEngine>>,
  hosts: readonly string[],
): Promise<StatusRuns> {
  const { statusFromStore, statusFromRestate } = await import('../status-from-store.js');
  // A read command: it never changes the store (damage is reported, and `statewright repair` repairs it).
  return restate
    ? statusFromRestate(restate, (await cli.registry()).machines, filter)
    : statusFromStore(storeOpener(values, { readOnly: true }), cli.registry, filter, hosts);
}

/**
 * HOLDER (with how it let go, if it did), EPOCH, and HEARTBEAT: the age of the last renewal, and
 * whether a held lease ran out. A set-aside run's lease is left to run out on purpose: no host takes
 * it over until one can restore it, so it says so rather than "(expired)".
 */
function leaseColumns(lease: HostLease | null, setAside: boolean): string[] {
  if (!lease) return ['-', '-', '-'];
  const holder =
    lease.state === 'released'
      ? `${lease.holder} (asleep)`
      : lease.state === 'handedOver'
        ? `${lease.holder} (handed over)`
        : lease.holder;
  const ranOut = lease.expired ? (setAside ? ' (set aside)' : ' (expired)') : '';
  return [holder, String(lease.epoch), `${span(lease.heartbeatAgeMs)} ago${ranOut}`];
}

function printTable(columns: readonly Column[], rows: string[][]): void {
  for (const line of tableLines(columns, rows, terminalWidth())) process.stdout.write(`${line}\n`);
}
