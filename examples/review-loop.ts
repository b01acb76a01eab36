/**
 * A review loop from a Node app: a primary agent works, a reviewer reviews, until the review
 * passes. The agents here are the stand-ins in ./agents (POSIX sh speaking Claude Code's
 * stream-json); for real ones use e.g. ['claude', '-p', '--output-format', 'stream-json', '--verbose'].
 *
 *   npx tsx examples/review-loop.ts
 *
 * An app imports the same names from 'statewright', 'statewright/machines' and
 * 'statewright/review-loop'; this file imports the source so it runs unbuilt.
 */
import { fileURLToPath } from 'node:url';
import { lifecycles } from '../machines/index.js';
import { createRuntime, sqliteStore } from '../src/index.js';
import { reviewLoopLifecycle } from '../src/review-loop/index.js';

const agents = fileURLToPath(new URL('./agents/', import.meta.url));

const store = await sqliteStore('.statewright/state.db');
const reviewLoops = reviewLoopLifecycle();
const runtime = await createRuntime({ store, machines: lifecycles, actors: { ...reviewLoops.actors } });
const loops = await reviewLoops.attach(runtime);
try {
  const outcome = await loops.run(
    {
      prompt: 'Implement the three steps of the plan.',
      reviewMode: 'claude', // the reviewer is claude, and its verdict decides
      maxIterations: 5,
      primary: { name: 'codex', command: [`${agents}review-loop-primary.sh`] },
      reviewer: { name: 'claude', command: [`${agents}review-loop-reviewer.sh`], env: { LOOP_REVIEWER: 'pass-at:3' } },
    },
    {
      onEntry: (entry) => {
        if (entry.type === 'iteration') console.log(`iteration ${entry.iteration}`);
        if (entry.type === 'signal')
          console.log(`  ${entry.agent}: ${entry.signal}${entry.reason ? ` (${entry.reason})` : ''}`);
      },
    },
  );
  console.log(`${outcome.state} after ${outcome.iterations} iterations: ${outcome.reason ?? outcome.error}`);
  console.log(`manifest and transcript: ${outcome.runDir}`);
} finally {
  await loops.close();
  await runtime.close();
  await store.close();
}
