import { setTimeout as sleep } from 'node:timers/promises';
import { Command } from 'commander';
import type { ExecutionEvent } from '../../../machines/execution.js';
import { startInspector } from '../../inspect/inspector.js';
import type { Runtime, RunSnapshot } from '../../runtime/index.js';
import type { Cli } from '../command.js';
import { createOption, storeOpener, storeOption } from '../open-store.js';
import { wholeNumber } from '../whole-number.js';
import { withRuntime } from '../with-runtime.js';

/** Executions a CI orchestrator sees every day, as the events that drive them. */
const SCENARIOS: Array<[string, ExecutionEvent[]]> = [
  ['build', ['ENQUEUE', 'START', 'SUCCEED']],
  ['deploy', ['HOLD', 'APPROVE', 'START', 'RECOVER', 'START', 'SUCCEED']],
  ['lint', ['ENQUEUE', 'START', 'RECOVER', 'FAIL']],
  ['e2e', ['ENQUEUE', 'START', 'CANCEL_GRACEFUL', 'COMPLETE']],
  ['nightly', ['WAIT', 'TIMER_DONE', 'START', 'SUCCEED']],
  ['docs', ['SKIP']],
];

interface DemoInput {
  name: string;
  script: ExecutionEvent[];
}

const isDemoRun = (run: RunSnapshot) => Array.isArray((run.input as DemoInput | null)?.script);

/** Drives one run along its script, at most `steps` events this time, with a little think time. */
async function drive(rt: Runtime, run: RunSnapshot, steps: number, stopping: () => boolean, print: (line: string) => void) {
  const { name, script } = run.input as DemoInput;
  let current = run;
  for (let taken = 0; taken < steps && current.seq < script.length && current.status === 'active' && !stopping(); taken++) {
    await sleep(50 + Math.random() * 250);
    const event = script[current.seq]!;
    const next = await rt.dispatch(current.runId, { type: event }, { actor: 'demo-orchestrator', idempotencyKey: `${current.runId}:${current.seq}` });
    print(`${name.padEnd(12)} ${current.state.padEnd(10)} --${event}--> ${next.state}`);
    current = next;
  }
  return current;
}

interface DemoOptions {
  readonly store?: string;
  readonly create?: boolean;
  readonly runs: number;
  readonly steps: number;
  readonly inspect?: boolean;
}

export const demoCommand = (cli: Cli) =>
  new Command('demo')
    .summary('the main job: drive executions concurrently on the default store; run again to continue them')
    .option('--runs <n>', 'how many new executions to start', wholeNumber(0), 6)
    .option('--steps <n>', 'how many events each execution advances this time', wholeNumber(1), 3)
    .option('--inspect', 'serve the Stately inspector bridge to watch the runs live')
    .addOption(storeOption())
    .addOption(createOption())
    .action(
      cli.exitsWith(async (values: DemoOptions) => {
        const inspector = values.inspect ? startInspector() : undefined;
        if (inspector) process.stdout.write(`Watch the runs live: open ${inspector.url} in a browser.\n`);
        let stopping = false;
        process.once('SIGINT', () => {
          stopping = true;
          process.stdout.write('\nstopping: finishing the events in flight, everything committed stays\n');
        });
        const print = (line: string) => process.stdout.write(`  ${line}\n`);
        try {
          await withRuntime(
            storeOpener(values),
            async (rt) => {
              const unfinished = (await rt.list({ machine: 'execution', status: 'active' })).filter(isDemoRun);
              process.stdout.write(unfinished.length ? `Picking up ${unfinished.length} unfinished executions from the last run.\n` : 'No unfinished executions: starting fresh.\n');
              const started: RunSnapshot[] = [];
              for (let i = 0; i < values.runs; i++) {
                const [name, script] = SCENARIOS[i % SCENARIOS.length]!;
                const input: DemoInput = { name: `${name}-${Date.now().toString(36).slice(-4)}${i}`, script };
                started.push(await rt.start('execution', { input }));
              }
              process.stdout.write(`Started ${started.length} executions; each advances up to ${values.steps} steps now.\n`);
              const final = await Promise.all([...unfinished, ...started].map((run) => drive(rt, run, values.steps, () => stopping, print)));
              const open = final.filter((r) => r.status === 'active');
              process.stdout.write(
                `\n${final.length - open.length} executions finished, ${open.length} left in progress (${open.map((r) => `${(r.input as DemoInput).name}: ${r.state}`).join(', ') || 'none'}).\n`,
              );
              if (open.length) process.stdout.write(`Run it again to pick them up. Inspect one: statewright history ${open[0]!.runId}\n`);
            },
            { recover: true },
          );
        } finally {
          inspector?.stop();
        }
        return 0;
      }),
    );
