import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { LoopRun } from '../../review-loop/index.js';
import type { DemoContext } from './demo-context.js';
import { slotOf } from './readable-ids.js';

/**
 * A review loop of two stand-in agents: the primary implements a step per iteration, the reviewer
 * asks for changes until three steps are in, then passes. A loop left unfinished last time is resumed.
 */
export async function driveReviewLoop(demo: DemoContext): Promise<void> {
  const slot = await slotOf(demo.runtime, 'review-loop', 'review');
  let loop: LoopRun;
  if (slot.active) {
    loop = await demo.reviewLoops.resume(slot.active);
    demo.print(`${slot.active.padEnd(12)} picked up`);
  } else {
    const cwd = join(demo.workDir, slot.next);
    await mkdir(cwd, { recursive: true });
    // The stand-ins pause between their messages as long as the demo does between steps.
    const env = { STANDIN_DELAY: String(demo.thinkMs / 1000) };
    loop = await demo.reviewLoops.start(
      {
        prompt: 'Implement the three steps of the plan.',
        reviewMode: 'claude',
        maxIterations: 5,
        primary: { name: 'codex', command: [join(demo.agents, 'review-loop-primary.sh')], cwd, env },
        reviewer: {
          name: 'claude',
          command: [join(demo.agents, 'review-loop-reviewer.sh')],
          cwd,
          env: { ...env, LOOP_REVIEWER: 'pass-at:3' },
        },
      },
      { id: slot.next },
    );
    demo.print(`${slot.next.padEnd(12)} started (codex works, claude reviews, in ${cwd})`);
  }
  const stopped = new Promise<undefined>((resolve) => demo.onStop(() => resolve(undefined)));
  const outcome = await Promise.race([loop.finished, stopped]);
  if (outcome)
    demo.print(
      `${loop.runId.padEnd(12)} ${outcome.state} after ${outcome.iterations} iterations${outcome.reason ? `: ${outcome.reason}` : ''}`,
    );
}
