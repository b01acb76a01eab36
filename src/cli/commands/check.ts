import { Command } from 'commander';
import { CHECK_RULES, checkMachine, type CheckViolation } from '../../graph/index.js';
import type { Lifecycles } from '../../../machines/lifecycle.js';
import { setAsideRunsIn, type SetAsideRun } from '../../runtime/set-aside.js';
import type { Cli } from '../command.js';
import { openStore, storeOption } from '../open-store.js';

interface CheckOptions {
  readonly json?: boolean;
  readonly store?: string;
}

/** The runs in the store `--store` names that the registry would set aside (read only). */
async function setAsideIn(spec: string, lifecycles: Lifecycles): Promise<SetAsideRun[]> {
  const store = await openStore(spec, { readOnly: true });
  try {
    return await setAsideRunsIn(store, lifecycles);
  } finally {
    await store.close();
  }
}

/** Every lifecycle of the registry held to every rule, each violation under the lifecycle's registry name. */
export function checkRegistry(lifecycles: Lifecycles): CheckViolation[] {
  return Object.entries(lifecycles).flatMap(([name, lifecycle]) =>
    checkMachine(lifecycle.machine, {
      name,
      ...(lifecycle.events && { events: lifecycle.events }),
      ...(lifecycle.waitsFor && { waitsFor: Object.keys(lifecycle.waitsFor) }),
      ...(lifecycle.strict && { strict: true }),
    }),
  );
}

/** The last line of the text: how many machines pass, and what fails or warns. */
function summary(machines: readonly string[], violations: readonly CheckViolation[]): string {
  const rules = Object.keys(CHECK_RULES).length;
  const errors = violations.filter((v) => v.severity === 'error');
  const warnings = violations.length - errors.length;
  const warned =
    warnings === 0
      ? ''
      : ` (${warnings} warning(s) in ${new Set(violations.filter((v) => v.severity === 'warning').map((v) => v.machine)).size} of them)`;
  const pass = machines.length === 1 ? '1 machine passes' : `${machines.length} machines pass`;
  if (errors.length === 0) return `${pass} ${rules} rules${warned}: ${machines.join(', ')}`;
  return `${errors.length} violation(s) in ${new Set(errors.map((v) => v.machine)).size} of ${machines.length} machines${warnings === 0 ? '' : `, and ${warnings} warning(s)`}`;
}

export const checkCommand = (cli: Cli) =>
  new Command('check')
    .summary(
      'verify every registered machine statically; exit 1 naming the rule, the state and the path of each violation',
    )
    .description(
      `Holds every registered machine to these rules:\n${Object.entries(CHECK_RULES)
        .map(([rule, { kind, summary }]) => `  ${rule} (${kind}): ${summary}`)
        .join(
          '\n',
        )}\n\nA correctness rule broken fails the check (exit 1); a lint rule broken is a warning (exit 0) unless the lifecycle is strict (defineLifecycle({ strict: true }); the built-ins are).\n\nWith --store, also holds the registry against the runs in that store: lists each live run it could not restore (a state it removed, a stored version with no migration path) and exits 1.`,
    )
    .option(
      '--json',
      'the result as one JSON object: { ok, machines, violations: [{ machine, rule, severity, state, path, message }] (severity: error or warning) }, and with --store, stranded: [{ runId, machine, state, version, reason }]',
    )
    .addOption(storeOption({ fallback: false }))
    .action(
      cli.exitsWith(async (values: CheckOptions) => {
        const { machines: lifecycles } = await cli.registry();
        const violations = checkRegistry(lifecycles);
        const setAside = values.store === undefined ? undefined : await setAsideIn(values.store, lifecycles);
        const ok = !violations.some((v) => v.severity === 'error') && !setAside?.length;
        const machines = Object.keys(lifecycles);
        if (values.json) {
          process.stdout.write(
            `${JSON.stringify({ ok, machines, violations, ...(setAside && { stranded: setAside }) })}\n`,
          );
        } else {
          for (const v of violations)
            process.stdout.write(
              `${v.machine}: ${v.severity === 'warning' ? 'warning: ' : ''}${v.rule}${v.state ? ` in '${v.state}'` : ''}${v.path ? ` (path: ${v.path})` : ''}: ${v.message}\n`,
            );
          process.stdout.write(`${summary(machines, violations)}\n`);
          for (const run of setAside ?? [])
            process.stdout.write(
              `${run.machine}: stranded run '${run.runId}' in '${run.state}' (v${run.version}): ${run.reason}\n`,
            );
          if (setAside) {
            process.stdout.write(
              setAside.length === 0
                ? `no live run in ${values.store} is stranded by the registry\n`
                : `${setAside.length} live run(s) in ${values.store} stranded: add the machine or a migration to its version in statewright.config.ts, or end them with \`statewright end <run> --reason ...\`\n`,
            );
          }
        }
        return ok ? 0 : 1;
      }),
    );
