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

/** Every lifecycle of the registry held to every rule. */
export function checkRegistry(lifecycles: Lifecycles): CheckViolation[] {
  return Object.values(lifecycles).flatMap((lifecycle) =>
    checkMachine(lifecycle.machine, {
      ...(lifecycle.events && { events: lifecycle.events }),
      ...(lifecycle.waitsFor && { waitsFor: Object.keys(lifecycle.waitsFor) }),
    }),
  );
}

export const checkCommand = (cli: Cli) =>
  new Command('check')
    .summary(
      'verify every registered machine statically; exit 1 naming the rule, the state and the path of each violation',
    )
    .description(
      `Holds every registered machine to these rules:\n${Object.entries(CHECK_RULES)
        .map(([rule, text]) => `  ${rule}: ${text}`)
        .join(
          '\n',
        )}\n\nWith --store, also holds the registry against the runs in that store: lists each live run it could not restore (a state it removed, a stored version with no migration path) and exits 1.`,
    )
    .option(
      '--json',
      'the result as one JSON object: { ok, machines, violations: [{ machine, rule, state, path, message }] }, and with --store, stranded: [{ runId, machine, state, version, reason }]',
    )
    .addOption(storeOption({ fallback: false }))
    .action(
      cli.exitsWith(async (values: CheckOptions) => {
        const { machines: lifecycles } = await cli.registry();
        const violations = checkRegistry(lifecycles);
        const setAside = values.store === undefined ? undefined : await setAsideIn(values.store, lifecycles);
        const ok = violations.length === 0 && !setAside?.length;
        const machines = Object.keys(lifecycles);
        if (values.json) {
          process.stdout.write(
            `${JSON.stringify({ ok, machines, violations, ...(setAside && { stranded: setAside }) })}\n`,
          );
        } else {
          for (const v of violations)
            process.stdout.write(
              `${v.machine}: ${v.rule}${v.state ? ` in '${v.state}'` : ''}${v.path ? ` (path: ${v.path})` : ''}: ${v.message}\n`,
            );
          process.stdout.write(
            violations.length === 0
              ? `${machines.length} machines pass ${Object.keys(CHECK_RULES).length} rules: ${machines.join(', ')}\n`
              : `${violations.length} violation(s) in ${new Set(violations.map((v) => v.machine)).size} of ${machines.length} machines\n`,
          );
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
