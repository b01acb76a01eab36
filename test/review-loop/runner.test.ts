/**
 * The runner: review loops on the durable runtime (SQLite), with the stand-in agents as real
 * processes through the shared agent process actor. Each test reads the outcome, the stored run,
 * the manifest and the transcript, which must agree.
 */
import { readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromCallback } from 'xstate';
import { CONTEXT_CANCELLED, MAX_ITERATIONS_REACHED } from '../../machines/review-loop/index.js';
import { loadManifest, writeManifest } from '../../src/review-loop/manifest.js';
import {
  reviewLoopLifecycle,
  type LoopOutcome,
  type ReviewLoops,
  type ReviewLoopsOptions,
} from '../../src/review-loop/review-loops.js';
import type { LoopSettingsInput } from '../../src/review-loop/settings.js';
import { readTranscript, type TranscriptEntry } from '../../src/review-loop/transcript.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { sqliteStore, type Store } from '../../src/stores/index.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { lifecycles } from '../../machines/index.js';
import { tempDir } from '../stores/temp-dir.js';

const agents = join(import.meta.dirname, '../../examples/agents');
const PRIMARY = join(agents, 'review-loop-primary.sh');
const REVIEWER = join(agents, 'review-loop-reviewer.sh');

let dir: { path: string; remove(): Promise<void> };
let store: Store;
let loops: ReviewLoops;
let runtime: Runtime;

/** Review loops on a runtime of their own that restores no run by itself: a loop is picked up only by `resume`. */
async function openLoops(options: ReviewLoopsOptions) {
  const wiring = reviewLoopLifecycle(options);
  const runtime = await createRuntime({ store, machines: lifecycles, actors: wiring.actors, recover: false });
  return { loops: await wiring.attach(runtime), runtime };
}

beforeEach(async () => {
  dir = await tempDir('loop-runner');
  store = await sqliteStore(join(dir.path, 'state.db'));
  ({ loops, runtime } = await openLoops({ baseDir: dir.path, graceMs: 500 }));
});
afterEach(async () => {
  await loops.close();
  await runtime.close();
  await store.close();
  await dir.remove();
});

const settings = (env: Record<string, string> = {}, extra: Partial<LoopSettingsInput> = {}): LoopSettingsInput => ({
  prompt: 'Implement the three steps of the plan.',
  reviewMode: 'codex',
  primary: { name: 'claude', command: [PRIMARY], env },
  reviewer: { name: 'codex', command: [REVIEWER], env },
  ...extra,
});

async function transcriptOf(outcome: LoopOutcome): Promise<TranscriptEntry[]> {
  const { entries, problems } = await readTranscript(join(outcome.runDir, 'transcript.jsonl'));
  expect(problems).toEqual([]);
  return entries;
}

const flow = (entries: TranscriptEntry[]) =>
  entries.flatMap((e) => {
    if (e.type === 'iteration') return [`#${e.iteration}`];
    if (e.type === 'state') return [`${e.from}-${e.event}->${e.to}`];
    if (e.type === 'signal') return [`${e.agent}:${e.signal}`];
    if (e.type === 'end') return [`end:${e.state}`];
    return [];
  });

describe('the review loop runner', () => {
  it('runs the primary and the reviewer until the review passes, keeping manifest, transcript and store in step', async () => {
    const seen: string[] = [];
    const run = await loops.start(settings({ LOOP_REVIEWER: 'pass-at:2' }), {
      id: 'loop-1',
      onEntry: (e) => seen.push(e.type),
    });
    const outcome = await run.finished;
    expect(outcome).toMatchObject({
      runId: 'loop-1',
      state: 'complete',
      iterations: 2,
      reason: 'PASS: all 2 steps are in and tested',
    });

    const entries = await transcriptOf(outcome);
    expect(flow(entries)).toEqual([
      'init-AGENTS_STARTED->working',
      '#1',
      'primary:none',
      'working-PRIMARY_FINISHED->reviewing',
      'reviewer:changes',
      'reviewing-CHANGES_REQUESTED->working',
      '#2',
      'primary:none',
      'working-PRIMARY_FINISHED->reviewing',
      'reviewer:pass',
      'reviewing-PASS->complete',
      'end:complete',
    ]);
    // Every agent run is in the transcript: its process, its messages, its result.
    expect(
      entries.filter((e) => e.type === 'execution').map((e) => e.type === 'execution' && `${e.agent}${e.iteration}`),
    ).toEqual(['primary1', 'reviewer1', 'primary2', 'reviewer2']);
    expect(entries.filter((e) => e.type === 'assistant')).toHaveLength(4);
    expect(entries.find((e) => e.type === 'result' && e.agent === 'reviewer' && e.iteration === 1)).toMatchObject({
      output: expect.stringContaining('NEEDS CHANGES: only 1 of 2 steps'),
    });
    // The listener heard each entry as it was written.
    expect(seen).toEqual(entries.map((e) => e.type));

    const { manifest } = await loadManifest(outcome.runDir);
    expect(manifest).toMatchObject({ state: 'completed', iteration: 2, reason: outcome.reason });
    expect(manifest.sessions.primary).toMatch(/^primary-\d+$/);
    expect(manifest.sessions.reviewer).toMatch(/^reviewer-\d+$/);
    const stored = await runtime.getSnapshot('loop-1');
    expect([stored.state, stored.context.iteration, stored.context.sessions]).toEqual([
      'complete',
      2,
      manifest.sessions,
    ]);

    // The bridge carried the reviewer's feedback into the primary's second prompt.
    const raw = await readFile(join(outcome.runDir, 'bridge.jsonl'), 'utf8');
    expect(
      raw
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).id),
    ).toEqual(['primary-1', 'reviewer-1', 'primary-2', 'reviewer-2']);
    // Each agent acknowledged what its prompt carried; the final review went to no one and stays pending.
    expect(JSON.parse(await readFile(join(outcome.runDir, 'bridge-cursors.json'), 'utf8'))).toEqual({
      primary: 2,
      reviewer: 3,
    });
    expect(await readFile(join(dir.path, 'work.txt'), 'utf8')).toBe('step\nstep\n');
  });

  it("continues each agent's own session when told how, and records the command each run was given", async () => {
    const resumeArgs = ['--resume', '{session}'];
    const base = settings({ LOOP_REVIEWER: 'pass-at:3' });
    const outcome = await loops.run({
      ...base,
      primary: { ...base.primary, resumeArgs },
      reviewer: { ...base.reviewer!, resumeArgs },
    });
    const entries = await transcriptOf(outcome);
    const sessions = (agent: string) =>
      entries.flatMap((e) => (e.type === 'result' && e.agent === agent ? [e.sessionId] : []));
    const first = sessions('primary')[0]!;
    expect(sessions('primary')).toEqual([first, first, first]);
    expect(new Set(sessions('reviewer')).size).toBe(1);
    expect(
      entries.flatMap((e) => (e.type === 'execution' && e.agent === 'primary' ? [e.command.slice(1)] : [])),
    ).toEqual([[], ['--resume', first], ['--resume', first]]);
    expect((await loadManifest(outcome.runDir)).manifest.sessions.primary).toBe(first);
  });

  it('completes on the primary DONE in single-agent mode, one process per iteration', async () => {
    const { reviewer: _none, ...single } = settings({ LOOP_PRIMARY: 'done-at:3' });
    const outcome = await loops.run(single);
    expect(outcome).toMatchObject({ state: 'complete', iterations: 3, reason: 'DONE: all 3 steps are implemented' });
    const entries = await transcriptOf(outcome);
    expect(flow(entries)).toEqual([
      'init-AGENTS_STARTED->working',
      '#1',
      'primary:none',
      'working-PRIMARY_FINISHED->working',
      '#2',
      'primary:none',
      'working-PRIMARY_FINISHED->working',
      '#3',
      'primary:done',
      'working-DONE->complete',
      'end:complete',
    ]);
  });

  it('fails on a FAIL signal, on an agent error, on the iteration budget, and from init when an agent cannot start', async () => {
    const fail = await loops.run(settings({ LOOP_REVIEWER: 'fail' }));
    expect(fail).toMatchObject({ state: 'failed', iterations: 1, error: 'FAIL: the change deletes user data' });

    const crash = await loops.run(settings({ LOOP_PRIMARY: 'crash' }));
    expect(crash).toMatchObject({ state: 'failed', iterations: 1 });
    expect(crash.error).toMatch(/^primary exited with code 1 before reporting a result/);
    expect((await transcriptOf(crash)).find((e) => e.type === 'error')).toMatchObject({
      agent: 'primary',
      iteration: 1,
    });

    const budget = await loops.run(settings({ LOOP_REVIEWER: 'pass-at:9' }, { maxIterations: 2 }));
    expect(budget).toMatchObject({ state: 'failed', iterations: 2, error: MAX_ITERATIONS_REACHED });

    const missing = await loops.run(settings({}, { reviewer: { command: [join(agents, 'no-such-agent.sh')] } }));
    expect(missing).toMatchObject({ state: 'failed', iterations: 0 });
    expect(missing.error).toMatch(/reviewer agent's program .*no-such-agent\.sh is not an executable file/);
    expect(flow(await transcriptOf(missing))).toEqual(['init-AGENT_START_FAILED->failed', 'end:failed']);
  });

  it('cancel fails the loop as "context cancelled" and stops the running agent', async () => {
    const run = await loops.start(settings({ LOOP_PRIMARY: 'hang' }));
    const pid = await new Promise<number>((resolve) => {
      const stop = runtime.subscribe((step) => {
        if (step.runId === run.runId && step.snapshot.context.process) {
          stop();
          resolve(step.snapshot.context.process.pid);
        }
      });
    });
    expect(() => process.kill(pid, 0)).not.toThrow();
    await loops.cancel(run.runId, 'test');
    expect(await run.finished).toMatchObject({ state: 'failed', iterations: 1, error: CONTEXT_CANCELLED });
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
  });

  it('resumes by run id or by an agent session id; a finished loop resolves with how it ended', async () => {
    const outcome = await loops.run(settings(), { id: 'r1' });
    const { manifest } = await loadManifest(outcome.runDir);
    expect(await loops.findRun(manifest.sessions.reviewer!)).toBe(outcome.runId);
    expect(await (await loops.resume(manifest.sessions.primary!)).finished).toEqual(outcome);
    await expect(loops.resume('nope')).rejects.toThrow(/No loop with run id or agent session id 'nope'/);
    // Starting another loop under the same id is refused before its files are touched.
    const before = await readFile(join(outcome.runDir, 'manifest.json'), 'utf8');
    await expect(loops.start(settings(), { id: outcome.runId })).rejects.toThrow(
      `A run with id '${outcome.runId}' already exists`,
    );
    expect(await readFile(join(outcome.runDir, 'manifest.json'), 'utf8')).toBe(before);
  });
});

/** Running, that is: a zombie (exited, not yet reaped by whoever inherited it) does not count. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
}

describe('resuming a loop stored in working', () => {
  it("restored by a runtime of the app's own (recover on, attached), fails with an agent error when its files are gone", async () => {
    const idle = await openLoops({ baseDir: dir.path, agentProcess: () => fromCallback(() => {}) });
    const first = await idle.loops.start(settings(), { id: 'lost' });
    await expect.poll(async () => (await idle.runtime.getSnapshot('lost')).state).toBe('working');
    await idle.loops.close();
    await idle.runtime.close();
    await rm(first.runDir, { recursive: true });

    const mine = reviewLoopLifecycle({ baseDir: dir.path });
    const errors: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((text: string) => errors.push(text)) as never;
    const own = await createRuntime({ store, machines: lifecycles, actors: mine.actors });
    let attached: ReviewLoops | undefined;
    try {
      attached = await mine.attach(own);
      await expect.poll(async () => (await own.getSnapshot('lost')).state).toBe('failed');
      expect((await own.getSnapshot('lost')).context.error).toMatch(
        /^primary could not be run: .*manifest\.json: no such file/,
      );
    } finally {
      process.stderr.write = write;
      await attached?.close();
      await own.close();
    }
    // Keeping the files in step failed too, and said so.
    expect(errors.join('')).toMatch(/loop 'lost': its files could not be updated: .*no such file/);
  });

  it('starts the agent that never started, and the iteration count continues', async () => {
    // A runner that stops after committing `working` but before any agent process starts.
    const idle = await openLoops({ baseDir: dir.path, agentProcess: () => fromCallback(() => {}) });
    const first = await idle.loops.start(settings({ LOOP_REVIEWER: 'pass-at:2' }), { id: 'w1' });
    await expect.poll(async () => (await idle.runtime.getSnapshot('w1')).state).toBe('working');
    await idle.loops.close();
    await idle.runtime.close();
    void first.finished;
    const { manifest } = await loadManifest(first.runDir);
    expect([manifest.state, manifest.iteration]).toEqual(['working', 1]);
    // As if that runner had been killed after its commits but before its writes: the files lag the store.
    await writeManifest(first.runDir, { ...manifest, state: 'submitted', iteration: 0 });
    const path = join(first.runDir, 'transcript.jsonl');
    await writeFile(path, `${(await readFile(path, 'utf8')).split('\n')[0]}\n`);

    const resumed = await loops.resume('w1');
    expect(await resumed.finished).toMatchObject({ state: 'complete', iterations: 2 });
    const entries = await transcriptOf(await resumed.finished);
    expect(entries.filter((e) => e.type === 'iteration').map((e) => e.type === 'iteration' && e.iteration)).toEqual([
      1, 2,
    ]);
    expect(
      entries.filter((e) => e.type === 'execution').map((e) => e.type === 'execution' && `${e.agent}${e.iteration}`),
    ).toEqual(['primary1', 'reviewer1', 'primary2', 'reviewer2']);
    expect(entries.filter((e) => e.type === 'end')).toHaveLength(1);
    expect((await loadManifest(first.runDir)).manifest).toMatchObject({ state: 'completed', iteration: 2 });
  });
});
