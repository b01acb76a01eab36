/**
 * The stand-in agents as real processes, read by the signal, review and decision code, driving the
 * real machine: the iteration flow of the seed without the durable runtime. The stream-json reader
 * here is the test's own minimum; the runtime uses the shared agent actor.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { MAX_ITERATIONS_REACHED, reviewLoopMachine, type AgentRole } from '../../machines/review-loop/index.js';
import { afterPrimary, afterReview, type AgentReport } from '../../src/review-loop/decide.js';
import { machineInput, resolveLoopSettings, type LoopSettingsInput } from '../../src/review-loop/settings.js';
import { startCommand } from '../support/child-processes.js';

const agents = join(import.meta.dirname, '../../examples/agents');
const PRIMARY = join(agents, 'review-loop-primary.sh');
const REVIEWER = join(agents, 'review-loop-reviewer.sh');

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'statewright-stand-in-'));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

interface Run extends AgentReport {
  lines: any[];
  sessionId?: string;
}

async function runAgent(
  command: string[],
  env: Record<string, string>,
  prompt = 'Make the parser handle empty input.',
): Promise<Run> {
  const [file, ...args] = command;
  const child = await execa(file!, args, { cwd, env, input: prompt, reject: false });
  const lines = child.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const result = lines.find((l) => l.type === 'result');
  return {
    lines,
    sessionId: lines.find((l) => l.type === 'system' && l.subtype === 'init')?.session_id,
    ...(result && { result: { text: result.result, isError: result.is_error } }),
    exit: { code: child.exitCode ?? null, signal: child.signal ?? null },
  };
}

describe('the stand-in agents', () => {
  it('speak stream-json: init with a session id, assistant messages with usage, a result with its cost', async () => {
    const run = await runAgent([PRIMARY], {}, 'a prompt with "quotes" and a \\ backslash');
    expect(run.lines.map((l) => l.type)).toEqual(['system', 'assistant', 'result']);
    expect(run.lines[0]).toMatchObject({ subtype: 'init', session_id: expect.stringMatching(/^primary-\d+$/) });
    expect(run.lines[1].message.usage).toEqual({ input_tokens: 40, output_tokens: 19 });
    expect(run.lines[2]).toMatchObject({ is_error: false, result: 'Implemented step 1.', total_cost_usd: 0.0012 });
    expect(await readFile(join(cwd, 'work.txt'), 'utf8')).toBe('step\n');
  });

  it('continue a session they are given with --resume', async () => {
    expect((await runAgent([REVIEWER, '--resume', 'review-7'], {})).sessionId).toBe('review-7');
  });

  it('escape what they say into valid JSON', async () => {
    const say = 'He wrote "PASS"\tand a \\ backslash\non two lines';
    expect((await runAgent([PRIMARY], { LOOP_PRIMARY_SAY: say })).result?.text).toBe(say);
  });

  it('crash without a result, report errors, and hang when told to', async () => {
    const crashed = await runAgent([PRIMARY], { LOOP_PRIMARY: 'crash' });
    expect([crashed.exit.code, crashed.result, crashed.lines.map((l) => l.type)]).toEqual([1, undefined, ['system']]);
    expect((await runAgent([REVIEWER], { LOOP_REVIEWER: 'error' })).result).toEqual({
      text: 'stand-in reviewer: the model is overloaded',
      isError: true,
    });
    const hung = startCommand(PRIMARY, [], { cwd, env: { LOOP_PRIMARY: 'hang' }, input: 'x', reject: false });
    // Its init line comes before it hangs: killed after it, it is killed hanging.
    await new Promise((resolve) => hung.stdout.once('data', resolve));
    process.kill(-hung.pid!, 'SIGTERM');
    expect((await hung).signal).toBe('SIGTERM');
  });
});

/** Runs a whole loop: the machine decides, the stand-ins work, decide.ts reads their output. */
async function runLoop(input: Omit<LoopSettingsInput, 'prompt'>, env: Record<string, string>) {
  const settings = resolveLoopSettings({ prompt: 'Make the parser handle empty input.', ...input });
  const actor = createActor(reviewLoopMachine, { input: machineInput(settings) }).start();
  const trail: string[] = [];
  const send = (event: Parameters<typeof actor.send>[0]) => {
    trail.push(event.type);
    actor.send(event);
  };
  const run = async (role: AgentRole) => {
    const agent = role === 'primary' ? settings.primary : settings.reviewer!;
    const sessionId = actor.getSnapshot().context.sessions[role];
    const report = await runAgent(sessionId ? [...agent.command, '--resume', sessionId] : agent.command, env);
    if (report.sessionId) actor.send({ type: 'agent.session', sessionId: report.sessionId });
    return report;
  };
  send({ type: 'AGENTS_STARTED' });
  while (actor.getSnapshot().status === 'active') {
    const { value, context } = actor.getSnapshot();
    if (value === 'working') send(afterPrimary(settings, await run('primary')));
    else send(afterReview(settings, context.primaryVerdict ?? 'none', await run('reviewer')));
  }
  const { value, context } = actor.getSnapshot();
  return {
    state: value,
    iteration: context.iteration,
    reason: context.reason,
    error: context.error,
    trail,
    sessions: context.sessions,
  };
}

const paired = (reviewMode: 'claude' | 'codex' | 'claudex', maxIterations = 5) => ({
  maxIterations,
  reviewMode,
  primary: { name: 'codex' as const, command: [PRIMARY] },
  reviewer: { name: 'claude' as const, command: [REVIEWER] },
});

describe('a review loop of stand-in agents', () => {
  it("iterates until the reviewer's PASS when the reviewer decides", async () => {
    const loop = await runLoop(paired('claude'), { LOOP_REVIEWER: 'pass-at:2' });
    expect(loop).toMatchObject({ state: 'complete', iteration: 2, reason: 'PASS: all 2 steps are in and tested' });
    expect(loop.trail).toEqual(['AGENTS_STARTED', 'PRIMARY_FINISHED', 'CHANGES_REQUESTED', 'PRIMARY_FINISHED', 'PASS']);
    // Each agent kept its session across iterations.
    expect(loop.sessions).toEqual({
      primary: expect.stringMatching(/^primary-/),
      reviewer: expect.stringMatching(/^reviewer-/),
    });
  });

  it('needs DONE from the primary and PASS from the reviewer in claudex mode', async () => {
    const loop = await runLoop(paired('claudex'), { LOOP_PRIMARY: 'done-at:3', LOOP_REVIEWER: 'pass-at:2' });
    // Iteration 2: the reviewer passes but the primary is not done yet, so the loop goes on.
    expect(loop.trail).toEqual([
      'AGENTS_STARTED',
      ...['PRIMARY_FINISHED', 'CHANGES_REQUESTED'],
      ...['PRIMARY_FINISHED', 'CHANGES_REQUESTED'],
      ...['PRIMARY_FINISHED', 'PASS'],
    ]);
    expect(loop).toMatchObject({ state: 'complete', iteration: 3, reason: 'PASS: Both agents approved' });
  });

  it('completes from working when the primary says DONE and its own agent decides', async () => {
    const loop = await runLoop(paired('codex'), { LOOP_PRIMARY: 'done-at:2' });
    expect(loop.trail).toEqual(['AGENTS_STARTED', 'PRIMARY_FINISHED', 'CHANGES_REQUESTED', 'DONE']);
    expect(loop).toMatchObject({ state: 'complete', iteration: 2, reason: 'DONE: all 2 steps are implemented' });
  });

  it('runs the primary alone in single-agent mode until DONE', async () => {
    const loop = await runLoop({ primary: { command: [PRIMARY] } }, { LOOP_PRIMARY: 'done-at:3' });
    expect(loop.trail).toEqual(['AGENTS_STARTED', 'PRIMARY_FINISHED', 'PRIMARY_FINISHED', 'DONE']);
    expect(loop).toMatchObject({ state: 'complete', iteration: 3 });
  });

  it('fails with "max iterations reached" when the work is never approved', async () => {
    const loop = await runLoop(paired('claude', 2), { LOOP_REVIEWER: 'pass-at:5' });
    expect(loop).toMatchObject({ state: 'failed', iteration: 2, error: MAX_ITERATIONS_REACHED });
    const alone = await runLoop(
      { maxIterations: 2, primary: { command: [PRIMARY] } },
      { LOOP_PRIMARY_SAY: 'Reset the PASSWORD hash and ABANDONED the old approach.' },
    );
    expect(alone).toMatchObject({ state: 'failed', iteration: 2, error: MAX_ITERATIONS_REACHED });
  });

  it('fails on a FAIL signal from either agent', async () => {
    expect(await runLoop(paired('claude'), { LOOP_PRIMARY: 'fail' })).toMatchObject({
      state: 'failed',
      iteration: 1,
      error: 'FAIL: the task cannot be done in this repository',
    });
    expect(await runLoop(paired('claude'), { LOOP_REVIEWER: 'fail' })).toMatchObject({
      state: 'failed',
      error: 'FAIL: the change deletes user data',
    });
  });

  it('fails on an agent that crashes or reports an error', async () => {
    expect(await runLoop(paired('claude'), { LOOP_REVIEWER: 'crash' })).toMatchObject({
      state: 'failed',
      error: 'reviewer exited with code 1 before reporting a result',
    });
    expect(await runLoop(paired('claude'), { LOOP_PRIMARY: 'error' })).toMatchObject({
      state: 'failed',
      error: 'primary reported an error: stand-in primary: the model is overloaded',
    });
  });
});
