import { Command } from 'commander';
import { leafStates, transitionTable, verifyMachine } from '../../graph/index.js';
import { machineJson } from '../../serve/machine-json.js';
import type { Cli } from '../command.js';

export const machinesCommand = (cli: Cli) =>
  new Command('machines')
    .summary('list the registered lifecycles and verify each statechart')
    .option(
      '--json',
      'print {"ok", "config", "machines": [...]}: each lifecycle as GET /api/machines lists it, with its "verification" {ok, unreachable, deadEnds, finalWithExits}',
    )
    .action(
      cli.exitsWith(async (values: { readonly json?: boolean }) => {
        const { machines, file } = await cli.registry();
        const verified = Object.entries(machines).map(([name, lifecycle]) => ({
          name,
          lifecycle,
          report: verifyMachine(lifecycle.machine),
        }));
        const sound = verified.every(({ report }) => report.ok);
        if (values.json) {
          const json = verified.map(({ name, lifecycle, report: { machine: _id, ...verification } }) => ({
            ...machineJson(name, lifecycle),
            verification,
          }));
          process.stdout.write(`${JSON.stringify({ ok: sound, config: file ?? null, machines: json })}\n`);
          return sound ? 0 : 1;
        }
        if (file) process.stdout.write(`from ${file} and the built-in lifecycles:\n`);
        for (const { name, lifecycle, report } of verified) {
          const { machine, version, summary } = lifecycle;
          const problems = [
            ...report.unreachable.map((s) => `unreachable state '${s}'`),
            ...report.deadEnds.map((s) => `non-final state '${s}' has no way out`),
            ...report.finalWithExits.map((s) => `final state '${s}' has exits`),
          ];
          process.stdout.write(
            `${name} v${version}: ${summary}\n  ${leafStates(machine).length} states, ${transitionTable(machine).length} transitions, ${report.ok ? 'verified' : problems.join('; ')}\n`,
          );
        }
        return sound ? 0 : 1;
      }),
    );
