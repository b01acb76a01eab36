import { Command } from 'commander';
import { lifecycles } from '../../../machines/index.js';
import { CHECK_RULES, checkMachine, type CheckViolation } from '../../graph/index.js';
import type { Cli } from '../command.js';

interface CheckOptions {
  readonly json?: boolean;
}

/** Every registered lifecycle held to every rule. */
export function checkRegistry(): CheckViolation[] {
  return Object.values(lifecycles).flatMap((lifecycle) => checkMachine(lifecycle.machine, { ...('events' in lifecycle && { events: lifecycle.events }) }));
}

export const checkCommand = (cli: Cli) =>
  new Command('check')
    .summary('verify every registered machine statically; exit 1 naming the rule, the state and the path of each violation')
    .description(
      `Holds every registered machine to these rules:\n${Object.entries(CHECK_RULES)
        .map(([rule, text]) => `  ${rule}: ${text}`)
        .join('\n')}`,
    )
    .option('--json', 'the result as one JSON object: { ok, machines, violations: [{ machine, rule, state, path, message }] }')
    .action(
      cli.exitsWith(async (values: CheckOptions) => {
        const violations = checkRegistry();
        // `check --store S` (runs a changed definition strands) adds its findings here, beside the static ones.
        const machines = Object.keys(lifecycles);
        if (values.json) {
          process.stdout.write(JSON.stringify({ ok: violations.length === 0, machines, violations }) + '\n');
        } else {
          for (const v of violations) process.stdout.write(`${v.machine}: ${v.rule}${v.state ? ` in '${v.state}'` : ''}${v.path ? ` (path: ${v.path})` : ''}: ${v.message}\n`);
          process.stdout.write(
            violations.length === 0
              ? `${machines.length} machines pass ${Object.keys(CHECK_RULES).length} rules: ${machines.join(', ')}\n`
              : `${violations.length} violation(s) in ${new Set(violations.map((v) => v.machine)).size} of ${machines.length} machines\n`,
          );
        }
        return violations.length === 0 ? 0 : 1;
      }),
    );
