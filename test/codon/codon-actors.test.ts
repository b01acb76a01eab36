import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type AnyActorRef } from 'xstate';
import type { CheckpointInput, RigSetupInput, SentinelState } from '../../machines/codon/index.js';
import { codonCheckpoint } from '../../src/codon/checkpoint-actor.js';
import { rigSetup } from '../../src/codon/rig-setup.js';
import { createSentinelDrain } from '../../src/codon/sentinel-drain.js';
import { SentinelQueue } from '../../src/codon/sentinel.js';
import { ManualClock } from '../../src/actor-contract/clock.js';
import { isolateGit, makeRepo } from '../support/git-repo.js';
import { RecordingRun } from '../support/recording-run.js';
import { until } from '../support/until.js';

beforeAll(isolateGit);
const cleanups: Array<() => void> = [];
const actors: AnyActorRef[] = [];
afterEach(() => {
  actors.splice(0).forEach((a) => a.stop());
  cleanups.splice(0).forEach((f) => f());
});

async function repo() {
  const r = await makeRepo();
  cleanups.push(r.remove);
  return r;
}

function start<I>(logic: ReturnType<typeof rigSetup>, input: I, run = new RecordingRun()) {
  const actor = createActor(logic, { input }).start();
  actors.push(actor);
  return { run, actor };
}

const identity = (workTree: string) => ({
  workTree,
  runId: 'run-1',
  codonId: 'build',
  attempt: 'run-1/build/2026-01-01T00:00:00.000Z',
});

describe('the checkpoint actor', () => {
  it('commits, then sends the planned transition with the SHA', async () => {
    const { dir, git } = await repo();
    writeFileSync(join(dir, 'result.txt'), 'work\n');
    const run = new RecordingRun();
    const input: CheckpointInput = {
      ...identity(dir),
      transition: { from: 'running', to: 'completed', metadata: { resultMessageReceived: true } },
    };
    start(codonCheckpoint(run), input, run);
    const sent = await run.next('CodonTransitioned');
    expect(sent).toEqual({
      type: 'CodonTransitioned',
      data: {
        runId: 'run-1',
        codonId: 'build',
        from: 'running',
        to: 'completed',
        metadata: { resultMessageReceived: true, checkpointSha: await git('rev-parse', 'HEAD') },
      },
    });
    expect(await git('show', '--name-only', '--format=', 'HEAD')).toBe('result.txt');
    expect(run.sent[0]!.options).toMatchObject({
      actor: 'checkpoint',
      ifAccepted: true,
      idempotencyKey: `checkpoint:${input.attempt}:completed`,
    });
  });

  it('turns a would-be completed codon into a failed one when the checkpoint fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'statewright-no-repo-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const run = new RecordingRun();
    start(
      codonCheckpoint(run),
      {
        ...identity(dir),
        transition: { from: 'completing-sentinels', to: 'completed', metadata: { resultMessageReceived: true } },
      },
      run,
    );
    const sent = await run.next('CodonTransitioned');
    expect(sent.data).toMatchObject({
      from: 'completing-sentinels',
      to: 'failed',
      metadata: {
        exitCode: 0,
        failedDuring: 'completing-sentinels',
        failureReason: {
          type: 'unknown',
          retriable: true,
          message: expect.stringMatching(/^Checkpoint creation failed: git add failed .*not a git repository/),
        },
      },
    });
  });

  it('records an error checkpoint for a failed codon, and lets it fail as planned when git cannot', async () => {
    const { dir, git } = await repo();
    const run = new RecordingRun();
    const failure = {
      exitCode: 2,
      failureReason: { type: 'unknown' as const, retriable: true },
      failedDuring: 'running' as const,
    };
    start(
      codonCheckpoint(run),
      { ...identity(dir), transition: { from: 'running', to: 'failed', metadata: failure } },
      run,
    );
    expect((await run.next('CodonTransitioned')).data.metadata).toEqual({
      ...failure,
      checkpointSha: await git('rev-parse', 'HEAD'),
    });
    expect(await git('log', '-1', '--format=%B')).toContain(
      'Statewright-Checkpoint: run-1/build/2026-01-01T00:00:00.000Z error',
    );

    const nowhere = new RecordingRun();
    start(
      codonCheckpoint(nowhere),
      { ...identity(join(dir, 'missing')), transition: { from: 'running', to: 'failed', metadata: failure } },
      nowhere,
    );
    expect((await nowhere.next('CodonTransitioned')).data).toMatchObject({ to: 'failed', metadata: failure });
  });
});

describe('the rig setup actor', () => {
  it('copies files and runs commands in the work tree, commits the rig checkpoint, and moves to starting', async () => {
    const { dir, git } = await repo();
    const templates = mkdtempSync(join(tmpdir(), 'statewright-templates-'));
    cleanups.push(() => rmSync(templates, { recursive: true, force: true }));
    mkdirSync(join(templates, 'config'));
    writeFileSync(join(templates, 'config', 'settings.json'), '{"level":3}\n');
    const run = new RecordingRun();
    const input: RigSetupInput = {
      ...identity(dir),
      operations: [
        { type: 'copy', from: join(templates, 'config'), to: 'src/config' },
        { type: 'command', run: 'mkdir -p out && cat src/config/settings.json > out/copied.json' },
        { type: 'command', run: 'echo from-sub > here.txt', cwd: 'src' },
      ],
    };
    start(rigSetup(run), input, run);
    const sent = await run.next('CodonTransitioned');
    const sha = await git('rev-parse', 'HEAD');
    expect(sent.data).toEqual({
      runId: 'run-1',
      codonId: 'build',
      from: 'preparing',
      to: 'starting',
      metadata: { checkpointSha: sha },
    });
    expect(readFileSync(join(dir, 'out', 'copied.json'), 'utf8')).toBe('{"level":3}\n');
    expect((await git('show', '--name-only', '--format=', 'HEAD')).split('\n').sort()).toEqual([
      'out/copied.json',
      'src/config/settings.json',
      'src/here.txt',
    ]);
    expect(await git('log', '-1', '--format=%B')).toContain(' rig-setup');
  });

  it('moves straight to starting when there is nothing to set up, without a checkpoint', async () => {
    const { dir, git } = await repo();
    const run = new RecordingRun();
    start(rigSetup(run), { ...identity(dir), operations: [] }, run);
    expect((await run.next('CodonTransitioned')).data).toEqual({
      runId: 'run-1',
      codonId: 'build',
      from: 'preparing',
      to: 'starting',
    });
    expect(await git('rev-list', '--count', 'HEAD')).toBe('1');
  });

  it('fails the codon at the first failing step, naming it, its exit code and its last line of output', async () => {
    const { dir } = await repo();
    const run = new RecordingRun();
    start(
      rigSetup(run),
      {
        ...identity(dir),
        operations: [
          { type: 'command', run: 'false', allowFailure: true },
          { type: 'command', run: 'echo compiling; echo "error: missing semicolon" >&2; exit 7' },
          { type: 'command', run: 'touch never.txt' },
        ],
      },
      run,
    );
    const sent = await run.next('CodonTransitioned');
    expect(sent.data).toEqual({
      runId: 'run-1',
      codonId: 'build',
      from: 'preparing',
      to: 'failed',
      metadata: {
        exitCode: 7,
        failedDuring: 'preparing',
        failureReason: {
          type: 'unknown',
          retriable: true,
          message:
            'rig step 2 `echo compiling; echo "error: missing semicolon" >&2; exit 7` failed with exit code 7: error: missing semicolon',
        },
      },
    });
    expect(existsSync(join(dir, 'never.txt'))).toBe(false);
    expect(
      run.logs.some(
        (l) => l.level === 'warn' && l.message.includes('rig step 1 `false` failed with exit code 1 (allowed to fail'),
      ),
    ).toBe(true);
  });

  it('refuses to copy outside the work tree', async () => {
    const { dir } = await repo();
    const run = new RecordingRun();
    start(rigSetup(run), { ...identity(dir), operations: [{ type: 'copy', from: 'README', to: '../escaped' }] }, run);
    expect((await run.next('CodonTransitioned')).data.metadata.failureReason.message).toBe(
      `rig step 1: copy target '../escaped' is outside the work tree ${dir}`,
    );
  });

  it('kills a running step when stopped, and reports nothing', async () => {
    const { dir } = await repo();
    const run = new RecordingRun();
    const { actor } = start(
      rigSetup(run),
      { ...identity(dir), operations: [{ type: 'command', run: 'touch started.txt; sleep 30; touch late.txt' }] },
      run,
    );
    await until('the step to start', () => existsSync(join(dir, 'started.txt')));
    actor.stop();
    await run.until(
      () => run.logs.find((l) => l.message === 'the rig setup was stopped: nothing reported'),
      'the stopped rig setup never ended',
    );
    expect(run.sent).toEqual([]);
    expect(existsSync(join(dir, 'late.txt'))).toBe(false);
  });
});

describe('the sentinel drain', () => {
  const clock = () => new ManualClock(Date.UTC(2026, 0, 1));
  const last = (id: string): SentinelState => ({
    id,
    model: 'haiku',
    loadedAt: '2026-01-01T00:00:00.000Z',
    llmCallCount: 0,
    failedLLMCalls: 0,
    totalCost: 0,
    status: 'active',
  });
  /** An LLM call that settles when the test says so. */
  function call() {
    let settle!: (cost: number | Error) => void;
    const promise = new Promise<{ costUsd: number }>((resolve, reject) => {
      settle = (cost) => (cost instanceof Error ? reject(cost) : resolve({ costUsd: cost }));
    });
    return { run: () => promise, settle };
  }
  const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('waits for every queue to drain and reports each sentinel unloaded as codon-complete, with its stats', async () => {
    const c = clock();
    const critic = new SentinelQueue({ id: 'critic', model: 'haiku', clock: c });
    const scribe = new SentinelQueue({ id: 'scribe', model: 'sonnet', clock: c });
    const calls = [call(), call(), call()];
    critic.trigger(calls[0]!.run);
    critic.trigger(calls[1]!.run);
    scribe.trigger(calls[2]!.run);
    const run = new RecordingRun('codon-run', 'codon', c);
    start(
      createSentinelDrain(() => [critic, scribe])(run),
      { sentinels: [last('critic'), last('scribe')], deadline: c.now() + 30_000, timeoutMs: 30_000 },
      run,
    );
    calls[0]!.settle(0.01);
    calls[2]!.settle(new Error('rate limited'));
    await tick();
    expect(run.sent).toEqual([]);
    c.advance(1000);
    calls[1]!.settle(0.02);
    const drained = await run.next('sentinels.drained');
    expect(drained.sentinelStates).toEqual([
      expect.objectContaining({
        id: 'critic',
        llmCallCount: 2,
        failedLLMCalls: 0,
        totalTriggers: 2,
        status: 'unloaded',
        unloadReason: 'codon-complete',
        unloadedAt: '2026-01-01T00:00:01.000Z',
      }),
      expect.objectContaining({
        id: 'scribe',
        llmCallCount: 1,
        failedLLMCalls: 1,
        totalCost: 0,
        status: 'unloaded',
        unloadReason: 'codon-complete',
      }),
    ]);
    expect(drained.sentinelStates[0].totalCost).toBeCloseTo(0.03, 12);
    expect(drained.totalCost).toBeCloseTo(0.03, 12);
    expect(run.sent[0]!.options).toMatchObject({ actor: 'sentinels', ifAccepted: true });
  });

  it('times out at the absolute deadline, unloading the late sentinels and naming them', async () => {
    const c = clock();
    const quick = new SentinelQueue({ id: 'quick', model: 'haiku', clock: c });
    const stuck = new SentinelQueue({ id: 'stuck', model: 'haiku', clock: c });
    const never = call();
    stuck.trigger(never.run);
    stuck.trigger(never.run);
    const run = new RecordingRun('codon-run', 'codon', c);
    // Restored late: 25 s of the 30 s were already spent before a restart.
    start(
      createSentinelDrain(() => [quick, stuck])(run),
      { sentinels: [last('quick'), last('stuck')], deadline: c.now() + 5000, timeoutMs: 30_000 },
      run,
    );
    await tick();
    c.advance(4999);
    await tick();
    expect(run.sent).toEqual([]);
    c.advance(1);
    const timedOut = await run.next('sentinels.timedOut');
    expect(timedOut).toMatchObject({ pending: ['stuck'], timeoutMs: 30_000 });
    expect(timedOut.sentinelStates.map((s: SentinelState) => [s.id, s.unloadReason])).toEqual([
      ['quick', 'codon-complete'],
      ['stuck', 'drain-timeout'],
    ]);
    expect(stuck.trigger(never.run)).toBe(false);
  });

  it('unloads a sentinel after three failures in a row, dropping its queue, which counts as drained', async () => {
    const c = clock();
    const flaky = new SentinelQueue({ id: 'flaky', model: 'haiku', clock: c });
    const calls = [call(), call(), call(), call()];
    for (const x of calls) flaky.trigger(x.run);
    for (const x of calls.slice(0, 3)) {
      x.settle(new Error('boom'));
      await tick();
    }
    await flaky.drained();
    expect(flaky.state()).toMatchObject({
      status: 'unloaded',
      unloadReason: 'consecutive-failures',
      llmCallCount: 3,
      failedLLMCalls: 3,
      totalTriggers: 4,
    });
  });

  it('reports a sentinel it cannot find (lost in a restart) by its last recorded state', async () => {
    const c = clock();
    const run = new RecordingRun('codon-run', 'codon', c);
    start(
      createSentinelDrain(() => [])(run),
      { sentinels: [{ ...last('gone'), llmCallCount: 4, totalCost: 0.2 }], deadline: c.now() + 1000, timeoutMs: 1000 },
      run,
    );
    const drained = await run.next('sentinels.drained');
    expect(drained).toMatchObject({
      totalCost: 0.2,
      sentinelStates: [{ id: 'gone', llmCallCount: 4, status: 'unloaded', unloadReason: 'fatal-error' }],
    });
  });
});
