/**
 * `statewright loop` as a user runs it: the built bin (npm run build first), the stand-in agents
 * as real processes, a real SQLite store. Includes the crash test: the runner is SIGKILLed while
 * the primary of iteration 2 is running, and a second runner resumes the loop to completion.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';
import { until } from '../support/until.js';

/** A wait on a loop runner and its agents: each is a process that can take seconds to start on a busy machine; this only catches a hang. */
const AGENT_WAIT_MS = 100_000;

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
const agents = join(import.meta.dirname, '../../examples/agents');
const PRIMARY = join(agents, 'review-loop-primary.sh');
const REVIEWER = join(agents, 'review-loop-reviewer.sh');

const loop = (cwd: string, env: Record<string, string>, ...args: string[]) =>
  startCommand(process.execPath, [bin, 'loop', ...args], { cwd, env, reject: false });
const tempCwd = () => testDir('loop-cli');

function transcript(cwd: string, runId: string): any[] {
  const path = join(cwd, '.statewright/loops', runId, 'transcript.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.endsWith('}'))
    .map((line) => JSON.parse(line));
}

/** Running, that is: a zombie (exited, not yet reaped by whoever inherited it) does not count. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
}

describe('statewright loop', () => {
  it('runs the two agents and prints each iteration as it happens', async () => {
    const cwd = tempCwd();
    const result = await loop(
      cwd,
      { LOOP_REVIEWER: 'pass-at:2' },
      'Implement two steps',
      '--primary',
      PRIMARY,
      '--reviewer',
      REVIEWER,
      '--mode',
      'codex',
      '--id',
      'l1',
    );
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('loop l1: primary and reviewer, at most 20 iterations');
    expect(lines.filter((l) => /^iteration|-->|signal/.test(l)).map((l) => l.trim())).toEqual([
      'init --AGENTS_STARTED--> working',
      'iteration 1',
      'primary  signal NONE',
      'working --PRIMARY_FINISHED--> reviewing',
      'reviewer signal CHANGES: only 1 of 2 steps are implemented',
      'reviewing --CHANGES_REQUESTED--> working',
      'iteration 2',
      'primary  signal NONE',
      'working --PRIMARY_FINISHED--> reviewing',
      'reviewer signal PASS: all 2 steps are in and tested',
      'reviewing --PASS--> complete',
    ]);
    expect(lines).toContain('complete after 2 iteration(s): PASS: all 2 steps are in and tested');
    expect(result.stdout).toMatch(/ {2}primary {2}running .*review-loop-primary\.sh \(pid \d+\)/);
    const again = await loop(cwd, {}, '--resume', 'l1');
    expect([again.exitCode, again.stdout.split('\n').slice(0, 2)]).toEqual([
      0,
      ['loop l1 has already ended:', 'complete after 2 iteration(s): PASS: all 2 steps are in and tested'],
    ]);
    const elsewhere = await loop(cwd, {}, '--resume', 'l1', '--store', 'memory');
    expect([elsewhere.exitCode, elsewhere.stderr]).toEqual([
      1,
      expect.stringMatching(/no run in this store: it was run on another store \(pass the same --store\)/),
    ]);
    // The run is in the store like any other.
    expect((await execa('node', [bin, 'status'], { cwd })).stdout).toMatch(/\nl1\s+review-loop\s+complete\s+done\s/);
  });

  it('runs the primary alone with --single, and exits 1 when the loop fails', async () => {
    const cwd = tempCwd();
    const done = await loop(cwd, { LOOP_PRIMARY: 'done-at:2' }, 'Two steps', '--primary', PRIMARY, '--single');
    expect([done.exitCode, done.stdout.split('\n').at(-2)]).toEqual([
      0,
      'complete after 2 iteration(s): DONE: all 2 steps are implemented',
    ]);
    const budget = await loop(
      cwd,
      {},
      'Forever',
      '--primary',
      `${PRIMARY} --verbose`,
      '--primary-resume=--resume {session}',
      '--single',
      '--max-iterations',
      '2',
      '--id',
      'b1',
    );
    expect([budget.exitCode, budget.stdout.split('\n').at(-2)]).toEqual([
      1,
      'failed after 2 iteration(s): max iterations reached',
    ]);
    // The second run continued the first one's session.
    const [one, two] = transcript(cwd, 'b1').filter((e) => e.type === 'result');
    expect(budget.stdout).toContain(`running ${PRIMARY} --verbose --resume ${one.sessionId} (pid`);
    expect(two.sessionId).toBe(one.sessionId);
  });

  it('refuses bad arguments with exit 2 and says what to do', async () => {
    const cwd = tempCwd();
    const cases: Array<[string[], RegExp]> = [
      [['task', '--reviewer', REVIEWER], /loop needs --primary/],
      [['task', '--primary', PRIMARY], /loop needs --reviewer "<command>", or --single/],
      [['task', '--primary', PRIMARY, '--single', '--reviewer', REVIEWER], /--single runs the primary alone/],
      [
        ['task', '--primary', PRIMARY, '--single', '--max-iterations', '0'],
        /option '--max-iterations <n>' argument '0' is invalid\. Give a whole number of at least 1\./,
      ],
      [
        ['task', '--primary', PRIMARY, '--reviewer', REVIEWER, '--mode', 'gpt'],
        /option '--mode <mode>' argument 'gpt' is invalid\. Allowed choices are claude, codex, claudex\./,
      ],
      [['task', '--primary', '"unclosed', '--single'], /--primary has an unclosed " quote/],
      [
        ['task', '--primary', PRIMARY, '--single', '--primary-resume=--resume'],
        /--primary-resume must say where the session id goes/,
      ],
      [
        ['--resume', 'x', '--single'],
        /--resume continues a loop with the settings it was started with: leave out --single/,
      ],
      [
        ['task', '--primary', PRIMARY, '--single', '--done-signal', 'PASS'],
        /doneSignal: The done signal "PASS" is already the PASS signal of reviews/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await loop(cwd, {}, ...args);
      expect([result.exitCode, result.stderr], args.join(' ')).toEqual([2, expect.stringMatching(message)]);
    }
    const unknown = await loop(cwd, {}, '--resume', 'nope');
    expect([unknown.exitCode, unknown.stderr]).toEqual([
      1,
      expect.stringMatching(/No loop with run id or agent session id 'nope'/),
    ]);
  });

  it('Ctrl-C stops the running agent and fails the loop as "context cancelled"', async () => {
    const cwd = tempCwd();
    const runner = loop(
      cwd,
      { LOOP_PRIMARY: 'hang' },
      'Hang',
      '--primary',
      PRIMARY,
      '--single',
      '--id',
      'c1',
      '--grace-ms',
      '500',
    );
    const pid = await until(
      'the primary agent to start',
      () => transcript(cwd, 'c1').find((e) => e.type === 'execution')?.pid as number | undefined,
      AGENT_WAIT_MS,
    );
    // A second runner may not take it over while this one lives: that would run a second agent.
    const busy = await loop(cwd, {}, '--resume', 'c1');
    expect([busy.exitCode, busy.stderr]).toEqual([
      1,
      expect.stringMatching(/Loop 'c1' is being run by process \d+ on .*Stop that process first/),
    ]);
    runner.kill('SIGINT');
    const result = await runner;
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(/interrupted: stopping the agent/);
    expect(result.stdout.split('\n')).toContain('failed after 1 iteration(s): context cancelled');
    expect(alive(pid)).toBe(false);
  });

  it('Ctrl-C kills an agent that ignores SIGTERM once the grace period is over', async () => {
    const cwd = tempCwd();
    const runner = loop(
      cwd,
      { LOOP_REVIEWER: 'stubborn' },
      'Stubborn',
      '--primary',
      PRIMARY,
      '--reviewer',
      REVIEWER,
      '--id',
      'c2',
      '--grace-ms',
      '400',
    );
    const pid = await until(
      'the reviewer to start',
      () =>
        transcript(cwd, 'c2').find((e) => e.type === 'execution' && e.agent === 'reviewer')?.pid as number | undefined,
      AGENT_WAIT_MS,
    );
    const stderr = join(cwd, '.statewright/loops/c2/agents/reviewer-1.jsonl.stderr');
    await until(
      'the reviewer to ignore SIGTERM',
      () => existsSync(stderr) && readFileSync(stderr, 'utf8').includes('ignoring SIGTERM'),
      AGENT_WAIT_MS,
    );
    runner.kill('SIGINT');
    const result = await runner;
    expect([result.exitCode, result.stdout.split('\n')]).toEqual([
      1,
      expect.arrayContaining(['  reviewing --CANCEL--> failed', 'failed after 1 iteration(s): context cancelled']),
    ]);
    // The reviewer ignores SIGTERM: gone once the runner has exited, it got the SIGKILL that follows the grace period.
    expect(alive(pid)).toBe(false);
  });

  it('resumes a runner SIGKILLed mid-iteration: the iteration count continues and the running agent is adopted, not run twice', async () => {
    const cwd = tempCwd();
    // The primary does step N once gate.N exists: iteration 2's is held until the runner is gone.
    const gate = join(cwd, 'gate');
    writeFileSync(`${gate}.1`, '');
    const env = { LOOP_PRIMARY: `gate:${gate}`, LOOP_REVIEWER: 'pass-at:3' };
    const args = ['Three steps', '--primary', PRIMARY, '--reviewer', REVIEWER, '--mode', 'codex', '--id', 'k1'];
    const runner: ResultPromise = loop(cwd, env, ...args);
    // Iteration 2's primary is running (held at its gate): kill the runner.
    const agent = await until(
      "the primary's second iteration",
      () =>
        transcript(cwd, 'k1').find((e) => e.type === 'execution' && e.agent === 'primary' && e.iteration === 2)?.pid as
          | number
          | undefined,
      AGENT_WAIT_MS,
    );
    runner.kill('SIGKILL');
    expect((await runner).signal).toBe('SIGKILL');
    expect(alive(agent)).toBe(true); // its own process group: the agent outlives the runner

    const manifest = JSON.parse(readFileSync(join(cwd, '.statewright/loops/k1/manifest.json'), 'utf8'));
    expect([manifest.state, manifest.iteration]).toEqual(['working', 2]);
    for (const step of [2, 3]) writeFileSync(`${gate}.${step}`, '');

    const resumed = await loop(cwd, env, '--resume', 'k1');
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout.split('\n')[0]).toBe('resuming loop k1: working, iteration 2');
    expect(resumed.stdout).toMatch(/complete after 3 iteration\(s\): PASS: all 3 steps are in and tested/);

    const entries = transcript(cwd, 'k1');
    expect(entries.filter((e) => e.type === 'iteration').map((e) => e.iteration)).toEqual([1, 2, 3]);
    // One primary process per iteration: iteration 2's was adopted, not spawned again.
    const primaries = entries
      .filter((e) => e.type === 'execution' && e.agent === 'primary')
      .map((e) => [e.iteration, e.pid]);
    expect(primaries).toEqual([
      [1, expect.any(Number)],
      [2, agent],
      [3, expect.any(Number)],
    ]);
    expect(readFileSync(join(cwd, 'work.txt'), 'utf8')).toBe('step\nstep\nstep\n');
    expect(JSON.parse(readFileSync(join(cwd, '.statewright/loops/k1/manifest.json'), 'utf8'))).toMatchObject({
      state: 'completed',
      iteration: 3,
    });
    // The store agrees and its history replays.
    expect((await execa('node', [bin, 'verify'], { cwd })).stdout).toBe('1 of 1 runs replay to their stored snapshot.');
  });

  it('resumes a runner SIGKILLed while the reviewer ran, after the reviewer finished alone: its verdict is read from its log, once', async () => {
    const cwd = tempCwd();
    // The reviewer reviews step 1 once gate.1 exists: it is held until the runner is gone.
    const gate = join(cwd, 'gate');
    const env = { LOOP_REVIEWER: `gate:${gate}`, LOOP_REVIEWER_SAY: 'PASS: reviewed while nobody watched' };
    const runner = loop(
      cwd,
      env,
      'One step',
      '--primary',
      PRIMARY,
      '--reviewer',
      REVIEWER,
      '--mode',
      'codex',
      '--id',
      'k2',
    );
    const reviewer = await until(
      'the reviewer to start',
      () =>
        transcript(cwd, 'k2').find((e) => e.type === 'execution' && e.agent === 'reviewer')?.pid as number | undefined,
      AGENT_WAIT_MS,
    );
    runner.kill('SIGKILL');
    await runner;
    writeFileSync(`${gate}.1`, '');
    await until('the reviewer to finish', () => !alive(reviewer), AGENT_WAIT_MS); // it finishes with no runner watching

    const resumed = await loop(cwd, env, '--resume', 'k2');
    expect(resumed.stdout.split('\n')[0]).toBe('resuming loop k2: reviewing, iteration 1');
    expect([resumed.exitCode, resumed.stdout]).toEqual([
      0,
      expect.stringContaining('complete after 1 iteration(s): PASS: reviewed while nobody watched'),
    ]);
    const entries = transcript(cwd, 'k2');
    expect(entries.filter((e) => e.agent === 'reviewer').map((e) => e.type)).toEqual([
      'execution',
      'assistant',
      'result',
      'signal',
    ]);
    expect(readFileSync(join(cwd, 'work.txt'), 'utf8')).toBe('step\n');
  });
});
