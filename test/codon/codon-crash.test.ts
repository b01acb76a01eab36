/**
 * The crash test of the codon lifecycle: a host process runs a codon whose stand-in agent hangs;
 * the HOST is killed with SIGKILL while the codon runs; a runtime restarted on the same SQLite
 * file finds the run crashed and the codon failed with "Server crashed" and its partial cost, and
 * no agent was spawned twice. The agent the dead host left behind is ended by the recovery.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createAgentProcess } from '../../src/actors/agent-process.js';
import { codonLifecycle } from '../../src/codon/codon-lifecycle.js';
import { isSameProcessAlive } from '../../src/os/process-identity.js';
import { createRuntime } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/stores/index.js';
import { endWithTest, startProgram } from '../support/child-processes.js';
import { isolateGit, makeRepo } from '../support/git-repo.js';
import { until } from '../support/until.js';

const host = new URL('../support/codon-host.ts', import.meta.url);
const hang = fileURLToPath(new URL('../../examples/agents/hang.sh', import.meta.url));
beforeAll(isolateGit);

const spawned = (log: string) => readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map(Number);

describe('a codon whose host is killed', () => {
  it('is found crashed after a restart, its cost kept, its agent neither spawned twice nor left running', async () => {
    const repo = await makeRepo();
    const database = join(repo.dir, '.git', 'statewright.db');
    const spawnLog = join(repo.dir, '.git', 'spawned');

    const child = startProgram(host, [database, repo.dir, hang, spawnLog], { reject: false, buffer: false });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const ready = await until(
      'the codon to run with a cost',
      () => output.split('\n').find((line) => line.startsWith('{"ready"')),
      30_000,
    ).catch(async (error) => {
      child.kill('SIGKILL');
      throw new Error(`${(error as Error).message}; host said: ${output}${(await child).stderr ?? ''}`);
    });
    const before = JSON.parse(ready).ready;
    const [agentPid] = spawned(spawnLog);
    endWithTest(agentPid); // it leads its own group, which outlives the host
    expect(before.claudePid).toBe(agentPid);

    child.kill('SIGKILL');
    const killed = await child;
    expect(killed.signal).toBe('SIGKILL');
    expect(isSameProcessAlive(agentPid!, before.claudePidStart)).toBe(true); // the agent outlived its host

    const store = sqliteStore(database);
    const codons = codonLifecycle({ agent: createAgentProcess({ pollMs: 20 }) });
    const runtime = await createRuntime({ store, machines: lifecycles, actors: codons.actors });
    try {
      const manager = await codons.attach(runtime);
      await runtime.flush();
      const state = manager.getState();
      expect(state.runs).toHaveLength(1);
      expect(state.runs[0]).toMatchObject({ runId: 'run-1', status: 'crashed', endTime: expect.any(String) });
      expect(state.currentRunId).toBe('run-1');
      const record = manager.getCodon('run-1', 'build');
      // hang.sh's one message: 500 input and 10 output tokens at 3 and 15 USD per million.
      expect(record).toMatchObject({
        status: 'failed',
        failedDuring: 'running',
        exitCode: -1,
        failureReason: { type: 'unknown', retriable: false, message: 'Server crashed' },
        partialCost: before.currentCost,
        partialTokens: { inputTokens: 500, outputTokens: 10, cacheCreationTokens: 0, cacheReadTokens: 0 },
        claudePid: agentPid,
      });
      expect(before.currentCost).toBeCloseTo((500 * 3 + 10 * 15) / 1e6, 12);
      expect(manager.getCurrentRunCost()).toBeCloseTo(before.currentCost, 12);

      const history = await runtime.history('run-1/build/1');
      expect(history.filter((r) => r.event.type === 'agent.spawned')).toHaveLength(1);
      expect(history.at(-1)).toMatchObject({ actor: 'recovery', before: 'running', after: 'failed' });
      await until('the orphaned agent to be ended', () => !isSameProcessAlive(agentPid!, before.claudePidStart));
      // Closing settles every effect of the restart: a respawn would have rewritten the pid record as it spawned.
      await runtime.close();
      expect(JSON.parse(readFileSync(join(repo.dir, '.git', 'statewright', 'build.log.pid'), 'utf8')).pid).toBe(
        agentPid,
      );
      expect(spawned(spawnLog)).toEqual([agentPid]);
    } finally {
      await runtime.close();
      await store.close();
      repo.remove();
    }
  }, 60_000);
});
