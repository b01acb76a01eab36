import type { ExecutionEvent } from '../../../machines/execution/index.js';
import type { Runtime, RunSnapshot } from '../../runtime/index.js';
import { slotOf } from './readable-ids.js';
import type { DemoContext } from './demo-context.js';

/** A step the demo leaves to a person: it waits until someone sends it (from the view or the CLI). */
const PERSON = 'person';
type ScriptStep = ExecutionEvent | { [PERSON]: ExecutionEvent };

/** Executions a CI orchestrator sees every day, as the events that drive them. */
const SCENARIOS: Array<[string, ScriptStep[]]> = [
  ['build', ['ENQUEUE', 'START', 'SUCCEED']],
  ['deploy', ['HOLD', { [PERSON]: 'APPROVE' }, 'START', 'RECOVER', 'START', 'SUCCEED']],
  ['lint', ['ENQUEUE', 'START', 'RECOVER', 'FAIL']],
  ['e2e', ['ENQUEUE', 'START', 'CANCEL_GRACEFUL', 'COMPLETE']],
  ['nightly', ['WAIT', 'TIMER_DONE', 'START', 'SUCCEED']],
  ['docs', ['SKIP']],
];

interface DemoInput {
  name: string;
  script: ScriptStep[];
}

/** Starts (or picks up) one execution per scenario and drives each along its script; resolves once each has finished or waits for a person. */
export async function driveExecutions(demo: DemoContext): Promise<void> {
  const runs: RunSnapshot[] = [];
  for (const [name, script] of SCENARIOS) {
    const slot = await slotOf(demo.runtime, 'execution', name);
    if (slot.active) {
      runs.push(await demo.runtime.getSnapshot(slot.active));
      demo.print(`${slot.active.padEnd(12)} picked up in ${runs.at(-1)!.state}`);
    } else {
      const input: DemoInput = { name, script };
      runs.push(await demo.runtime.start('execution', { id: slot.next, input }));
      demo.print(`${slot.next.padEnd(12)} started`);
    }
  }
  await Promise.all(runs.map((run) => drive(demo, run)));
}

/**
 * Applies the script from where the run is (its seq counts the events applied), pausing between
 * steps so a person can watch. At a step left to a person it returns, and goes on later, once they acted.
 */
async function drive(demo: DemoContext, run: RunSnapshot): Promise<void> {
  const script = (run.input as DemoInput | null)?.script;
  if (!Array.isArray(script)) return;
  let current = run;
  while (current.status === 'active' && current.seq < script.length && !demo.stopping()) {
    const step = script[current.seq]!;
    if (typeof step !== 'string') {
      demo.print(
        `${current.runId.padEnd(12)} waits in ${current.state} for a person: ${demo.hint(`send ${current.runId} '{"type":"${step[PERSON]}"}'`)} or the button in the view`,
      );
      const waiting = current;
      demo.later(nextStep(demo, waiting).then((next) => (next.seq > waiting.seq ? drive(demo, next) : undefined)));
      return;
    }
    await demo.pause();
    if (demo.stopping()) break;
    try {
      current = await demo.runtime.dispatch(
        current.runId,
        { type: step },
        { actor: 'demo-orchestrator', idempotencyKey: `${current.runId}:${current.seq}` },
      );
    } catch (error) {
      // Someone else moved the run (from the view, say): the script no longer applies, and the run is theirs.
      demo.print(`${current.runId.padEnd(12)} left as it is: ${(error as Error).message}`);
      return;
    }
  }
}

/** The run after its next committed step, or as it is when the demo stops first. */
async function nextStep(demo: DemoContext, run: RunSnapshot): Promise<RunSnapshot> {
  const runtime: Runtime = demo.runtime;
  let unsubscribe = () => {};
  let stopped = () => {};
  const moved = new Promise<void>((resolve) => {
    unsubscribe = runtime.subscribe((step) => step.runId === run.runId && step.seq > run.seq && resolve());
    stopped = demo.onStop(resolve);
  });
  // A step committed before the subscription is seen here.
  const now = await runtime.getSnapshot(run.runId);
  if (now.seq === run.seq) await moved;
  unsubscribe();
  stopped();
  return runtime.getSnapshot(run.runId);
}
