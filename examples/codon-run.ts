/**
 * A codon run from a Node app: one Hankweave run with one codon whose agent is the stand-in
 * examples/agents/succeed.sh (swap in `claude -p --output-format stream-json --verbose` for the
 * real thing). The codon sets up its rig, runs the agent, commits a checkpoint and completes; the
 * state manager shows the seed's document and costs. Everything is kept in a SQLite file.
 *
 * Usage: node --import tsx examples/codon-run.ts <git work tree>
 * docs/lifecycles/codon.md shows this program with package imports (`statewright`, `statewright/codon`).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lifecycles } from '../machines/index.js';
import { codonLifecycle, type CodonExecution } from '../src/codon/index.js';
import { createRuntime, sqliteStore } from '../src/index.js';

const workTree = process.argv[2];
if (!workTree) {
  process.stderr.write('usage: codon-run.ts <git work tree>\n');
  process.exit(2);
}
const agent = fileURLToPath(new URL('./agents/succeed.sh', import.meta.url));

const store = sqliteStore(join(workTree, '.git', 'statewright.db'));
const codons = codonLifecycle();
const runtime = await createRuntime({ store, machines: lifecycles, actors: { ...codons.actors } });
const manager = await codons.attach(runtime);

manager.on('transitionError', ({ event, error }) => console.error(`${event.type} refused: ${error.message}`));
const finished = new Promise<CodonExecution>((resolve) =>
  manager.on('stateChanged', () => {
    const codon = manager.getCodon('run-1', 'write-notes');
    if (codon && ['completed', 'failed', 'skipped'].includes(codon.status)) resolve(codon);
  }),
);

await manager.transitionAndWait({
  type: 'RunStarted',
  data: {
    runId: 'run-1',
    runFolder: 'runs/run-1',
    gitBranch: 'main',
    startingConditions: { type: 'fresh' },
    serverPid: process.pid,
  },
});
manager.transition({
  type: 'CodonStarted',
  data: {
    runId: 'run-1',
    codonId: 'write-notes',
    workTree,
    rig: [{ type: 'command', run: 'printf "1.2.0\\n" > VERSION' }],
    agent: {
      command: [agent],
      prompt: 'Write the release notes.',
      logPath: join(workTree, '.git', 'statewright', 'write-notes.log'),
      env: { STANDIN_WRITE: 'RELEASE_NOTES.md' },
    },
    pricing: { input: 3, output: 15, cacheCreation: 3.75, cacheRead: 0.3 },
  },
});

const codon = await finished;
console.log(`codon ${codon.codonId}: ${codon.status}`);
if (codon.status === 'completed') console.log(`checkpoint ${codon.completionCheckpoint}, cost ${codon.finalCost} USD`);
console.log(`run cost ${manager.getCurrentRunCost()} USD, total ${manager.getTotalCost()} USD`);

await manager.transitionAndWait({
  type: codon.status === 'completed' ? 'RunCompleted' : 'RunFailed',
  data: { runId: 'run-1' },
});
const validation = await manager.validate();
console.log(
  `runs: ${manager
    .getState()
    .runs.map((run) => `${run.runId} ${run.status}`)
    .join(', ')}; valid: ${validation.valid}`,
);

await manager.close();
await runtime.close();
await store.close();
