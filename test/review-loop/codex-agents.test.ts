/**
 * Codex as a review loop's agent: the stand-in examples/agents/codex-exec.sh speaks `codex exec
 * --json` (thread.started, agent_message items, turn.completed), and a loop runs to completion on
 * it, through the API and through `statewright loop --mode codex` (the built bin: npm run build first).
 * From its second run on, each agent continues its thread: `codex exec --json resume <thread>`.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { agentCommand } from '../../src/review-loop/loop-agent.js';
import { reviewLoopLifecycle } from '../../src/review-loop/review-loops.js';
import { readTranscript, type TranscriptEntry } from '../../src/review-loop/transcript.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { memoryStore } from '../../src/stores/index.js';
import { tempDir, testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';

const CODEX = join(import.meta.dirname, '../../examples/agents/codex-exec.sh');
const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Each agent's runs: the command it was run with and the thread its result named. */
function runsOf(entries: TranscriptEntry[], agent: 'primary' | 'reviewer') {
  const commands = entries.flatMap((e) => (e.type === 'execution' && e.agent === agent ? [e.command] : []));
  const threads = entries.flatMap((e) => (e.type === 'result' && e.agent === agent ? [e.sessionId] : []));
  return { commands, threads };
}

function expectThreadContinued(entries: TranscriptEntry[], agent: 'primary' | 'reviewer') {
  const { commands, threads } = runsOf(entries, agent);
  expect(threads).toHaveLength(2);
  expect(threads[1]).toBe(threads[0]);
  expect(commands).toEqual([
    [CODEX, agent, 'exec', '--json'],
    [CODEX, agent, 'exec', '--json', 'resume', threads[0]],
  ]);
  // turn.completed counts the whole thread; each iteration's tokens are its own, so they add up to it.
  const results = entries.flatMap((e) => (e.type === 'result' && e.agent === agent ? [e] : []));
  const whole = results.at(-1)!.threadUsage!;
  expect(results[1]!.totalTokens).toBeLessThan(results[1]!.threadUsage!.input_tokens!);
  expect(results.reduce((sum, r) => sum + r.totalTokens!, 0)).toBe(whole.input_tokens! + whole.output_tokens!);
}

describe('a Codex agent in the review loop', () => {
  it('completes a loop from the API: its thread is its session, its last agent message its result, and it resumes the thread', async () => {
    const dir = await tempDir('codex-loop');
    cleanups.push(() => dir.remove());
    const wiring = reviewLoopLifecycle({ baseDir: dir.path, graceMs: 500 });
    const runtime = await createRuntime({
      store: memoryStore(),
      machines: lifecycles,
      actors: wiring.actors,
      recover: false,
    });
    const loops = await wiring.attach(runtime);
    cleanups.push(async () => {
      await loops.close();
      await runtime.close();
    });
    const codex = (role: string) => ({
      command: [CODEX, role, 'exec', '--json'],
      resumeArgs: ['resume', '{session}'],
      env: { LOOP_REVIEWER: 'pass-at:2' },
    });
    const run = await loops.start(
      {
        prompt: 'Implement two steps.',
        reviewMode: 'codex',
        primary: { name: 'claude', ...codex('primary') },
        reviewer: { name: 'codex', ...codex('reviewer') },
      },
      { id: 'codex-1' },
    );
    const outcome = await run.finished;
    expect(outcome).toMatchObject({ state: 'complete', iterations: 2, reason: 'PASS: all 2 steps are in and tested' });
    const { entries, problems } = await readTranscript(join(outcome.runDir, 'transcript.jsonl'));
    expect(problems).toEqual([]);
    expectThreadContinued(entries, 'primary');
    expectThreadContinued(entries, 'reviewer');
    const results = entries.filter((e) => e.type === 'result');
    expect(results.map((e) => e.type === 'result' && [e.agent, e.isError, e.output.split('\n')[0]])).toEqual([
      ['primary', false, 'Implemented step 1.'],
      ['reviewer', false, 'Reviewed 1 steps.'],
      ['primary', false, 'Implemented step 2.'],
      ['reviewer', false, 'Reviewed 2 steps.'],
    ]);
  });

  it('completes a loop from `statewright loop --mode codex`, resuming each thread with --primary-resume / --reviewer-resume', async () => {
    const cwd = testDir('codex-loop-cli');
    const result = await startCommand(
      process.execPath,
      [
        bin,
        'loop',
        'Implement two steps',
        '--primary',
        `${CODEX} primary exec --json`,
        '--primary-resume',
        'resume {session}',
        '--reviewer',
        `${CODEX} reviewer exec --json`,
        '--reviewer-resume',
        'resume {session}',
        '--mode',
        'codex',
        '--id',
        'c1',
      ],
      { cwd, env: { LOOP_REVIEWER: 'pass-at:2' }, reject: false },
    );
    expect([result.exitCode, result.stderr]).toEqual([0, '']);
    expect(result.stdout.split('\n')).toContain('complete after 2 iteration(s): PASS: all 2 steps are in and tested');
    const { entries, problems } = await readTranscript(join(cwd, '.statewright/loops/c1/transcript.jsonl'));
    expect(problems).toEqual([]);
    expectThreadContinued(entries, 'primary');
    expectThreadContinued(entries, 'reviewer');
  });

  it("takes resume arguments that name the command's own program as the whole command (`codex exec --json resume {session}`)", () => {
    const agent = {
      name: 'codex' as const,
      command: ['codex', 'exec', '--json'],
      resumeArgs: ['codex', 'exec', '--json', 'resume', '{session}'],
    };
    expect(agentCommand(agent, undefined)).toEqual(['codex', 'exec', '--json']);
    expect(agentCommand(agent, 't-1')).toEqual(['codex', 'exec', '--json', 'resume', 't-1']);
    expect(agentCommand({ ...agent, resumeArgs: ['resume', '{session}'] }, 't-1')).toEqual([
      'codex',
      'exec',
      '--json',
      'resume',
      't-1',
    ]);
    expect(
      agentCommand({ name: 'claude', command: ['claude', '-p'], resumeArgs: ['--resume', '{session}'] }, 's-1'),
    ).toEqual(['claude', '-p', '--resume', 's-1']);
  });
});
