import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { DEFAULT_INSPECT_PORT, DEFAULT_PORT, startServe } from '../../serve/serve.js';
import { DEFAULT_UI_DIR } from '../../serve/ui-files.js';
import { lifecycles as builtIns } from '../../../machines/index.js';
import type { Cli } from '../command.js';
import { demoContext } from '../demo/demo-context.js';
import { driveExecutions } from '../demo/demo-executions.js';
import { driveReviewLoop } from '../demo/demo-review-loop.js';
import { driveSession } from '../demo/demo-session.js';
import { driveTask, prepareTaskDir } from '../demo/demo-task.js';
import { createOption, storeFiles, storeOpener, storeOption } from '../open-store.js';
import { inspectorBanner } from '../../inspect/bridge-page.js';
import { wholeNumber } from '../whole-number.js';

interface DemoOptions {
  readonly store?: string;
  readonly create?: boolean;
  readonly port: number;
  readonly pace: number;
  readonly once?: boolean;
  readonly inspect?: boolean;
}

/** The stand-in agents that speak Claude Code's protocol, from the package's examples/agents/. */
function standInAgents(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'examples', 'agents');
}

export const demoCommand = (cli: Cli) =>
  new Command('demo')
    .summary('the main job: serve the live view and drive a mix of runs on it, until Ctrl-C')
    .description(
      'Starts `statewright serve` on the store and drives demo runs with readable ids (build-1, deploy-1, session-1...): ' +
        'CI executions, one held for a person to approve, and a Claude Code session (a stand-in agent) waiting for approval. ' +
        'Open the printed URL to watch them move. Running it again continues what is unfinished and starts a new round only ' +
        'of what finished, so it never piles up unfinished runs. It hosts the lifecycles of your config (--config, else ' +
        'statewright.config.ts) beside the built-in ones, as serve does: start runs of yours in the same view.',
    )
    .option('--port <n>', 'the port of the API and the live view (0 picks a free one)', wholeNumber(0), DEFAULT_PORT)
    .option('--pace <ms>', 'the pause between two steps of a run, so a person can follow', wholeNumber(0), 1200)
    .addOption(
      new Option('--once', 'stop once every run has finished or waits for a person, instead of serving until Ctrl-C'),
    )
    .option('--inspect', `also serve the Stately inspector bridge on port ${DEFAULT_INSPECT_PORT}`)
    .addOption(storeOption())
    .addOption(createOption())
    .action(
      cli.exitsWith(async (values: DemoOptions) => {
        const out = (line: string) => cli.io.writeOut(`${line}\n`);
        // The config's lifecycles beside the built-in ones, as serve hosts them (read before the store is opened);
        // the built-ins the demo drives are hosted even when the config leaves them out (`builtins: false`).
        const { machines: configured, actors, file, fromConfig } = await cli.registry();
        const machines = { ...builtIns, ...configured };
        const store = await storeOpener(values)();
        try {
          const files = storeFiles(values.store);
          // Its own folder, so that the task lifecycle's STATE.json never lands in the folder the demo runs from.
          const taskDir = join(files.home, 'demo', 'task');
          await prepareTaskDir(taskDir);
          const server = await startServe({
            store,
            machines,
            actors,
            home: files.home,
            taskDir,
            host: '127.0.0.1',
            port: values.port,
            ...(files.serverDir && { serverDir: files.serverDir, handOverFile: files.handOverFile! }),
            uiDir: DEFAULT_UI_DIR,
            ...(values.inspect && { inspectPort: DEFAULT_INSPECT_PORT }),
            onError: ({ runId, event, error }) =>
              cli.io.writeErr(`${runId}: ${event.type} refused: ${error.message}\n`),
          });
          const { context, stop } = demoContext({
            runtime: server.lifecycles.runtime,
            sessions: server.lifecycles.sessions!,
            reviewLoops: server.lifecycles.reviewLoops!,
            agents: standInAgents(),
            workDir: join(files.home, 'demo'),
            ...(values.store !== undefined && { store: values.store }),
            thinkMs: values.pace,
            print: (line) => out(`  ${line}`),
          });
          out(`The live view: ${server.viewUrl}`);
          if (file !== undefined)
            out(
              `Yours, from ${file}: ${fromConfig.join(', ')} (start one in the view, or: ${context.hint('start <machine>')})`,
            );
          // Every step that changes a state, whoever sent it (the demo, the view, the CLI, an agent), as it commits.
          const unsubscribe = server.lifecycles.runtime.subscribe(
            (step) =>
              step.event &&
              step.before !== step.after &&
              context.print(
                `${step.runId.padEnd(12)} ${(step.before ?? '').padEnd(10)} --${step.event.type}--> ${step.after}`,
              ),
          );
          if (server.inspectorUrl) out(inspectorBanner(server.inspectorUrl));
          let interrupted!: () => void;
          const signalled = new Promise<void>((resolve) => (interrupted = resolve));
          const onSignal = () => interrupted();
          process.once('SIGINT', onSignal);
          process.once('SIGTERM', onSignal);
          try {
            // Settled: every run has finished or waits for a person. A failure of a driver ends the demo with its error.
            const settled = Promise.all([
              driveExecutions(context),
              driveSession(context),
              driveReviewLoop(context),
              driveTask(context, server.lifecycles.tasks!),
            ]).then(
              () =>
                !context.stopping() &&
                out(
                  `\nEvery demo run has finished or waits for you at ${server.viewUrl} (see one with ${context.hint('history deploy-1')}).${values.once ? '' : ' Ctrl-C stops.'}`,
                ),
            );
            await Promise.race([signalled, values.once ? settled : settled.then(() => signalled)]);
            out('\nstopping: finishing the events in flight; everything committed stays');
            await settled;
          } finally {
            process.off('SIGINT', onSignal);
            process.off('SIGTERM', onSignal);
            await stop();
            unsubscribe();
            // The demo ends what it started (agents included): no process outlives it.
            await server.close({ handOver: false });
          }
        } finally {
          await store.close();
        }
        return 0;
      }),
    );
