/**
 * A whole codon, end to end: the codon machine hosted by the durable runtime with its real actors
 * (rig setup, the agent process running a stand-in agent, sentinel draining, git checkpoints) in a
 * real git repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CodonInput, SentinelState } from '../../machines/codon/index.js';
import { lifecycles } from '../../machines/index.js';
import { createAgentProcess } from '../../src/actors/agent-process.js';
import { codonLifecycle } from '../../src/codon/codon-lifecycle.js';
import { SentinelQueue, type Sentinel } from '../../src/codon/sentinel.js';
import {
  createRuntime,
  systemClock,
  type RunSnapshot,
  type Runtime,
  type RuntimeError,
} from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';
import { isolateGit, makeRepo } from '../support/git-repo.js';

const agents = fileURLToPath(new URL('../../examples/agents/', import.meta.url));
beforeAll(isolateGit);
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function codon(agent: string, overrides: Partial<CodonInput> = {}, sentinels: Sentinel[] = []) {
  const repo = await makeRepo();
  cleanups.push(repo.remove);
  const input: CodonInput = {
    runId: 'run-7',
    codonId: 'write-notes',
    startedAt: Date.now(),
    workTree: repo.dir,
    agent: {
      command: [join(agents, `${agent}.sh`)],
      prompt: 'Write the notes.',
      logPath: join(repo.dir, '.git', 'statewright', 'write-notes.log'),
      env: { STANDIN_SESSION_ID: 'session-7', STANDIN_WRITE: 'notes.md' },
      graceMs: 500,
    },
    ...overrides,
  };
  const refused: RuntimeError[] = [];
  const { actors } = codonLifecycle({ sentinels: () => sentinels, agent: createAgentProcess({ pollMs: 20 }) });
  const runtime: Runtime = await createRuntime({
    store: memoryStore(),
    machines: lifecycles,
    actors,
    onError: (error) => refused.push(error),
  });
  cleanups.push(() => runtime.close());
  const runId = 'codon-7';
  await runtime.start('codon', { id: runId, input });

  /** Resolves with the first committed snapshot that satisfies `predicate`. */
  const reached = (predicate: (snapshot: RunSnapshot) => boolean, timeoutMs = 20_000) =>
    new Promise<RunSnapshot>((resolve, reject) => {
      const timer = setTimeout(async () => {
        stop();
        const now = await runtime.getSnapshot(runId);
        reject(
          new Error(`not reached after ${timeoutMs} ms; in ${now.state}; applied ${(await applied()).join(', ')}`),
        );
      }, timeoutMs);
      const check = (snapshot: RunSnapshot) => {
        if (!predicate(snapshot)) return;
        clearTimeout(timer);
        stop();
        resolve(snapshot);
      };
      const stop = runtime.subscribe((step) => step.runId === runId && check(step.snapshot));
      void runtime.getSnapshot(runId).then(check);
    });
  const applied = async () => (await runtime.history(runId)).map((record) => record.event.type);
  /** The codon's record once the run has finished. */
  const done = async () => (await reached((s) => s.status === 'done')).context.codon;
  const send = (event: { type: string; [key: string]: unknown }) => runtime.send(runId, event);
  return { runtime, repo, refused, reached, applied, done, send };
}

describe('a codon with its real actors', () => {
  it('sets up the rig, runs the agent, checkpoints its work and completes with the authoritative cost', async () => {
    const { done, repo, refused, applied } = await codon('succeed', {
      rig: [{ type: 'command', run: 'printf "rig\\n" > rig.txt' }],
      pricing: { input: 3, output: 15, cacheCreation: 3.75, cacheRead: 0.3 },
    });
    const record = await done();
    const [completion, rig] = (await repo.git('log', '-2', '--format=%H')).split('\n');
    expect(record).toMatchObject({
      status: 'completed',
      codonId: 'write-notes',
      exitCode: 0,
      rigSetupCheckpoint: rig,
      completionCheckpoint: completion,
      claudeSessionId: 'session-7',
      claudePid: expect.any(Number),
      finalCost: 0.0123,
      finalTokens: { inputTokens: 2700, outputTokens: 200, cacheCreationTokens: 0, cacheReadTokens: 3000 },
      assistantMessageCount: 2,
      resultMessageReceived: true,
    });
    expect(await repo.git('show', '--name-only', '--format=', rig!)).toBe('rig.txt');
    expect(await repo.git('show', '--name-only', '--format=', completion!)).toBe('notes.md');
    expect(readFileSync(join(repo.dir, 'notes.md'), 'utf8')).toBe('written by the stand-in agent\n');
    expect(await applied()).toEqual([
      'CodonTransitioned',
      'agent.spawned',
      'agent.session',
      'agent.assistant',
      'agent.assistant',
      'agent.result',
      'agent.exited',
      'CodonTransitioned',
    ]);
    expect(refused).toEqual([]);
  });

  it('fails with an error checkpoint when the agent fails', async () => {
    const { done, repo } = await codon('fail');
    const record = await done();
    expect(record).toMatchObject({
      status: 'failed',
      failedDuring: 'running',
      exitCode: 1,
      failureReason: { type: 'api-error', retriable: true },
      partialCost: 0.004,
      errorCheckpoint: await repo.git('rev-parse', 'HEAD'),
    });
  });

  it('fails during preparing when the rig fails, without starting the agent', async () => {
    const { done, applied } = await codon('succeed', { rig: [{ type: 'command', run: 'exit 3' }] });
    const record = await done();
    expect(record).toMatchObject({ status: 'failed', failedDuring: 'preparing', exitCode: 3 });
    expect(await applied()).toEqual(['CodonTransitioned']);
  });

  it('stops an agent that spends past the budget and completes with budgetExceeded', async () => {
    const { done, runtime } = await codon('over-budget', {
      pricing: { input: 3, output: 15, cacheCreation: 0, cacheRead: 0 },
      budgetUsd: 1,
    });
    const record = await done();
    // Each message costs 100k x 3 + 2k x 15 per million = 0.33 USD: the fourth crosses 1 USD.
    expect(record).toMatchObject({ status: 'completed', budgetExceeded: true, resultMessageReceived: false });
    expect(record.finalCost).toBeGreaterThanOrEqual(1);
    const history = await runtime.history('codon-7');
    expect(history.filter((r) => r.event.type === 'agent.exited').map((r) => r.event)).toEqual([
      expect.objectContaining({ signal: 'SIGTERM' }),
    ]);
  });

  it('skips on request: stops the hanging agent and records a skip checkpoint', async () => {
    const { done, send, repo, reached } = await codon('hang');
    await reached((s) => s.state === 'running');
    send({ type: 'codon.skip', reason: 'not needed' });
    const record = await done();
    expect(record).toMatchObject({
      status: 'skipped',
      skippedDuring: 'running',
      skipCheckpoint: await repo.git('rev-parse', 'HEAD'),
    });
    const deadline = Date.now() + 5000;
    while (groupAlive(record.claudePid) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(groupAlive(record.claudePid)).toBe(false);
  });

  it('drains its sentinels before the checkpoint and keeps their final stats', async () => {
    const critic = new SentinelQueue({ id: 'critic', model: 'haiku', clock: systemClock });
    critic.trigger(() => new Promise((resolve) => setTimeout(() => resolve({ costUsd: 0.002 }), 150)));
    const { done, send, reached } = await codon('succeed', {}, [critic]);
    // Load the sentinel as the wiring does once the agent runs.
    await reached((s) => s.state !== 'preparing');
    send({ type: 'SentinelStatesUpdated', data: { sentinelStates: [critic.state()], totalCost: 0 } });
    const record = await done();
    expect(record.status).toBe('completed');
    const executed: SentinelState[] = record.sentinels.executed;
    expect(executed).toEqual([
      expect.objectContaining({
        id: 'critic',
        llmCallCount: 1,
        totalCost: 0.002,
        status: 'unloaded',
        unloadReason: 'codon-complete',
      }),
    ]);
    expect(record.sentinels.totalCost).toBe(0.002);
    expect(existsSync(record.claudeLogPath)).toBe(true);
  });
});

describe('a codon under the state manager', () => {
  it('is force-stopped on request: its hanging agent is stopped and it fails, with an error checkpoint', async () => {
    const repo = await makeRepo();
    cleanups.push(repo.remove);
    const codons = codonLifecycle({ agent: createAgentProcess({ pollMs: 20 }) });
    const runtime = await createRuntime({ store: memoryStore(), machines: lifecycles, actors: codons.actors });
    cleanups.push(() => runtime.close());
    const manager = await codons.attach(runtime);
    const running = new Promise((resolve) => manager.once('codonRunning', resolve));
    await manager.transitionAndWait({
      type: 'RunStarted',
      data: {
        runId: 'r',
        runFolder: 'r',
        gitBranch: 'main',
        startingConditions: { type: 'fresh' },
        serverPid: process.pid,
      },
    });
    await manager.transitionAndWait({
      type: 'CodonStarted',
      data: {
        runId: 'r',
        codonId: 'c',
        workTree: repo.dir,
        agent: { command: [join(agents, 'hang.sh')], logPath: join(repo.dir, '.git', 'c.log'), graceMs: 500 },
      },
    });
    await running;
    await manager.requestStop('r', 'c', 'force', 'operator said so');
    const ended = await new Promise<any>((resolve) => {
      const check = () => {
        const record = manager.getCodon('r', 'c');
        if (record && record.status === 'failed') resolve(record);
      };
      manager.on('stateChanged', check);
      check();
    });
    expect(ended).toMatchObject({ failedDuring: 'running', errorCheckpoint: await repo.git('rev-parse', 'HEAD') });
    expect(ended.failureReason.message).toContain('operator said so');
    await expect(manager.requestStop('r', 'nope', 'skip')).rejects.toThrow(/no codon 'nope'/);
  });
});
