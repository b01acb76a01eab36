import { Command } from 'commander';
import { leafStates, transitionTable, verifyMachine } from '../../graph/index.js';
import type { Cli } from '../command.js';

export const machinesCommand = (cli: Cli) =>
  new Command('machines').summary('list the registered lifecycles and verify each statechart').action(
    cli.exitsWith(async () => {
      const { machines, file } = await cli.registry();
      let sound = true;
      if (file) process.stdout.write(`from ${file} and the built-in lifecycles:\n`);
      for (const [name, { machine, version, summary }] of Object.entries(machines)) {
        const report = verifyMachine(machine);
        sound &&= report.ok;
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
