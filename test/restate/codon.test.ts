/**
 * A codon on Restate, its actors performed by the endpoint's actor host: the rig set up, the
 * stand-in agent run in a real git repository, its work checkpointed, and the codon completed with
 * the agent's cost, as the codon's own tests see it on a store (test/codon/codon-lifecycle.test.ts).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CodonInput } from '../../machines/codon/index.js';
import { lifecycles } from '../../machines/index.js';
import { createAgentProcess } from '../../src/actors/agent-process.js';
import { codonLifecycle } from '../../src/codon/codon-lifecycle.js';
import { isolateGit, makeRepo } from '../support/git-repo.js';
import { until } from '../support/until.js';
import { startRestateHost, type RestateHost } from './restate-host.js';

const agents = fileURLToPath(new URL('../../examples/agents/', import.meta.url));
let host: RestateHost;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  isolateGit();
  const { actors } = codonLifecycle({ sentinels: () => [], agent: createAgentProcess({ pollMs: 20 }) });
  host = await startRestateHost({ machines: lifecycles, actors });
}, 120_000);

afterAll(async () => {
  await host?.stop();
  for (const cleanup of cleanups) await cleanup();
});

it('sets up the rig, runs the agent, checkpoints its work and completes with its cost, its actors in the worker', async () => {
  const repo = await makeRepo();
  cleanups.push(repo.remove);
  const input: CodonInput = {
    runId: 'run-7',
    codonId: 'write-notes',
    startedAt: Date.now(),
    workTree: repo.dir,
    agent: {
      command: [join(agents, 'succeed.sh')],
      prompt: 'Write the notes.',
      logPath: join(repo.dir, '.git', 'statewright', 'write-notes.log'),
      env: { STANDIN_SESSION_ID: 'session-7', STANDIN_WRITE: 'notes.md' },
      graceMs: 500,
    },
    rig: [{ type: 'command', run: 'printf "rig\\n" > rig.txt' }],
    pricing: { input: 3, output: 15, cacheCreation: 3.75, cacheRead: 0.3 },
  };
  await host.runtime.start('codon', { id: 'codon-7', input });
  const done = await until('the codon to finish', async () => {
    const run = await host.runtime.getSnapshot('codon-7');
    return run.status === 'done' ? run : undefined;
  });
  const [completion, rig] = (await repo.git('log', '-2', '--format=%H')).split('\n');
  expect(done.context.codon).toMatchObject({
    status: 'completed',
    codonId: 'write-notes',
    exitCode: 0,
    rigSetupCheckpoint: rig,
    completionCheckpoint: completion,
    claudeSessionId: 'session-7',
    finalCost: 0.0123,
  });
  const types = (await host.runtime.history('codon-7')).map((e) => e.event.type);
  expect(types.filter((type) => type === 'agent.spawned')).toHaveLength(1);
  expect(types.filter((type) => type === 'agent.exited')).toHaveLength(1);
  expect(host.endpoint.actorHost?.size).toBe(0);
});
