import { Command } from 'commander';
import { explanationText } from '../../explain/explanation-text.js';
import type { Cli } from '../command.js';
import {
  engineOption,
  restateAdminOption,
  restateEngine,
  restateTokenOption,
  type EngineValues,
} from '../restate-engine.js';
import { isLocalStore, openStore, storeOption } from '../open-store.js';
import { machineOfRun } from '../with-runtime.js';
import type { Explanation } from '../../explain/explanation.js';
import { agreeOnConfig } from '../config-agreement.js';
import { findServer, liveHostIds } from '../find-server.js';
import { refuseMemoryStore } from '../memory-store-refusal.js';
import { explainThroughServe } from '../serve-reads.js';

interface ExplainOptions extends EngineValues {
  readonly store?: string;
  readonly json?: boolean;
  readonly verbose?: boolean;
}

export const explainCommand = (cli: Cli) =>
  new Command('explain')
    .summary('why a run is where it is, and what will move it next')
    .description(
      'Why a run is where it is: its state and since when, the events it accepts and what each needs, its armed deadlines, ' +
        'its owner, the lease, pending approvals or questions, the agent process, and a one-line verdict. Read from the store; changes nothing.',
    )
    .argument('<run>', 'the run id')
    .option('--json', 'the explanation as one JSON object (state, since, accepts, deadlines, verdict...)')
    .option('--verbose', 'speak of the host lease (holder, epoch, heartbeat) even when one host has the store')
    .addOption(storeOption())
    .addOption(engineOption())
    .addOption(restateAdminOption())
    .addOption(restateTokenOption())
    .action(
      cli.exitsWith(async (runId: string, values: ExplainOptions) => {
        const restate = await restateEngine(values);
        if (restate) {
          const explanation = await restate.explain(runId);
          process.stdout.write(values.json ? `${JSON.stringify(explanation)}\n` : explanationText(explanation));
          return 0;
        }
        refuseMemoryStore(
          values.store,
          'explain',
          'it would read an empty store of its own, not the runs another process holds',
        );
        // What a run accepts and whether it is set aside depend on the config: said when a serve of this store runs another.
        const server = findServer(values);
        const agreed =
          server &&
          (await agreeOnConfig(server, cli.configFile(), (line) => cli.io.writeErr(`${line}\n`), { reading: true }));
        // Through that serve when it runs this config: this process loads no store, runtime or lifecycle.
        const explanation =
          (server &&
            agreed &&
            (await explainThroughServe(server, runId, values.verbose ?? false).catch(() => undefined))) ??
          (await explainFromStore(cli, runId, values, server === undefined));
        process.stdout.write(values.json ? `${JSON.stringify(explanation)}\n` : explanationText(explanation));
        return 0;
      }),
    );

/** The explanation read from the store itself, under the registry this command reads. */
async function explainFromStore(
  cli: Cli,
  runId: string,
  values: ExplainOptions,
  noServer: boolean,
): Promise<Explanation> {
  const [{ explainRun }, store] = await Promise.all([
    import('../../explain/explain-run.js'),
    openStore(values.store, { readOnly: true, create: false }),
  ]);
  try {
    // Only the run's lifecycle is loaded: the store is asked which it is first.
    const { machines } = await cli.registry(await machineOfRun(runId)(store));
    return await explainRun(
      // No serve for a store of this machine (its hosts run here): a run whose timers or actors must run is told to start one.
      {
        store,
        machines,
        noHost: noServer && isLocalStore(values.store),
        hosts: liveHostIds(values.store),
      },
      runId,
      { verbose: values.verbose ?? false },
    );
  } finally {
    await store.close();
  }
}
