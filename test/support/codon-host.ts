/**
 * A host process for the codon crash test: a runtime on a SQLite file with the real codon actors,
 * and the state manager, running one codon whose stand-in agent hangs after its first message.
 * Prints `{"ready": <record>}` once the codon runs with a cost committed, then waits to be killed.
 * Usage: node dist-test/test/support/codon-host.js <sqlite file> <work tree> <agent script> <spawn log>
 */
import { join } from 'node:path';
import { lifecycles } from '../../machines/index.js';
import { createAgentProcess } from '../../src/actors/agent-process.js';
import { codonLifecycle } from '../../src/codon/codon-lifecycle.js';
import { createRuntime } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/stores/index.js';

const [database, workTree, agent, spawnLog] = process.argv.slice(2);
if (!database || !workTree || !agent || !spawnLog) {
  process.stderr.write('usage: codon-host.ts <sqlite file> <work tree> <agent script> <spawn log>\n');
  process.exit(2);
}

const codons = codonLifecycle({ agent: createAgentProcess({ pollMs: 20 }) });
const runtime = await createRuntime({ store: sqliteStore(database), machines: lifecycles, actors: codons.actors });
const manager = await codons.attach(runtime);
manager.on('transitionError', ({ event, error }) => process.stderr.write(`${event.type}: ${error.message}\n`));
manager.on('stateChanged', () => {
  const record = manager.getCodon('run-1', 'build');
  if (record?.status === 'running' && record.currentCost > 0)
    process.stdout.write(`${JSON.stringify({ ready: record })}\n`);
});
manager.transition({
  type: 'RunStarted',
  data: {
    runId: 'run-1',
    runFolder: join(workTree, '.statewright', 'run-1'),
    gitBranch: 'main',
    startingConditions: { type: 'fresh' },
    serverPid: process.pid,
  },
});
manager.transition({
  type: 'CodonStarted',
  data: {
    runId: 'run-1',
    codonId: 'build',
    workTree,
    agent: {
      command: [agent],
      prompt: 'Build it.',
      logPath: join(workTree, '.git', 'statewright', 'build.log'),
      env: { STANDIN_SPAWN_LOG: spawnLog },
      graceMs: 200,
    },
    pricing: { input: 3, output: 15, cacheCreation: 3.75, cacheRead: 0.3 },
  },
});
