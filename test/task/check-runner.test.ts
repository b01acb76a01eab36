import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createActor, type EventObject } from 'xstate';
import { taskMachine, taskView, type TaskEvent } from '../../machines/task/index.js';
import { explainRejection } from '../../src/graph/index.js';
import { ManualClock } from '../../src/actor-contract/clock.js';
import { checkFeedback, checkRunner, tail, type CheckRunnerOptions } from '../../src/task/check-runner.js';
import { recordingRun } from './recording-run.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'statewright-checks-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Starts the check runner on its own, as the task machine would, and records what it sends. */
function startChecks(options: Partial<CheckRunnerOptions> & { commands: string[] }, attempt = 1) {
  const clock = new ManualClock(Date.UTC(2026, 4, 1));
  const recorded = recordingRun({ clock });
  const actor = createActor(checkRunner({ cwd: dir, maxFeedbackLines: 30, ...options })(recorded.run), {
    input: { attempt },
  }).start();
  const result = () =>
    vi.waitFor(
      () => {
        expect(recorded.sent).toHaveLength(1);
        return recorded.sent[0]!;
      },
      { timeout: 10_000 },
    );
  return { actor, result, recorded, clock };
}

/** Whether `pid` still runs. A zombie does not: it waits for its new parent to reap it, which here may take a while. */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return !/^\d+ \(.*\) Z/.test(stat);
};

describe('the check runner', () => {
  it('reports check_passed when every command exits 0', async () => {
    const { result } = startChecks({ commands: ['true', 'printf "all good\\n"', ''] });
    expect(await result()).toEqual({
      event: { type: 'check_passed', agent: 'checker:statewright:1' },
      options: { actor: 'checker', ifAccepted: true, reason: '3 check command(s) exited 0' },
    });
  });

  it('passes with a warning when no commands are configured', async () => {
    const { result } = startChecks({ commands: [] });
    expect((await result()).event).toEqual({
      type: 'check_passed',
      agent: 'checker:statewright:1',
      warning: expect.stringContaining('no check commands'),
    });
  });

  it('runs every command, fails on any non-zero exit, and keeps the tail of each failure for the executor', async () => {
    const marker = join(dir, 'second-ran');
    const { result } = startChecks({
      commands: [
        'i=0; while [ $i -lt 12 ]; do i=$((i+1)); echo "out $i"; done; echo "boom" >&2; exit 3',
        `touch ${marker}`,
        'echo "lint: 2 problems"; exit 1',
      ],
      maxFeedbackLines: 4,
    });
    const { event, options } = await result();
    expect(existsSync(marker)).toBe(true);
    expect(event).toMatchObject({
      type: 'check_failed',
      agent: 'checker:statewright:1',
      failed: [expect.stringContaining('exit 3'), 'echo "lint: 2 problems"; exit 1'],
    });
    const feedback = event.feedback as string;
    expect(feedback.split('\n\n')).toEqual([
      expect.stringMatching(/^\$ i=0;.*exit 3 {2}\(exit code 3; last 4 of 13 lines\)\nout 10\nout 11\nout 12\nboom$/s),
      '$ echo "lint: 2 problems"; exit 1  (exit code 1)\nlint: 2 problems',
    ]);
    expect(options?.reason).toContain('exit code 3');
  });

  it('keeps the full output of every command in a log named after the attempt and the time', async () => {
    const logDir = join(dir, 'logs');
    const { result, clock } = startChecks(
      { commands: ['echo fine', 'echo broken; exit 2'], maxFeedbackLines: 1, logDir },
      7,
    );
    const feedback = (await result()).event.feedback as string;
    const logPath = join(logDir, `check-7-${clock.now()}.log`);
    expect(feedback.endsWith(`Full log: ${logPath}`)).toBe(true);
    expect(await readFile(logPath, 'utf8')).toBe(
      '=== [PASS] echo fine (exit code 0)\nfine\n\n=== [FAIL] echo broken; exit 2 (exit code 2)\nbroken\n',
    );
  });

  it('reports a command that cannot start as a failure that says why', async () => {
    const { result } = startChecks({ commands: ['true'], cwd: join(dir, 'no-such-dir') });
    const { event } = await result();
    expect(event.failed).toEqual(['true']);
    expect(event.feedback).toMatch(/did not start/);
    expect(event.feedback).toMatch(/no-such-dir/);
  });

  it('passes its environment to the commands', async () => {
    const { result } = startChecks({
      commands: ['test "$CHECK_MODE" = strict'],
      env: { ...process.env, CHECK_MODE: 'strict' } as Record<string, string>,
    });
    expect((await result()).event.type).toBe('check_passed');
  });

  it('stops the whole process group when stopped, and reports nothing', async () => {
    const pidFile = join(dir, 'stopped.pid');
    const { actor, recorded } = startChecks({ commands: [`sleep 30 & echo $! > ${pidFile}; wait`, 'echo never'] });
    const child = await vi.waitFor(async () => Number(await readFile(pidFile, 'utf8')), { timeout: 10_000 });
    expect(alive(child)).toBe(true);
    actor.stop();
    await vi.waitFor(() => expect(alive(child)).toBe(false), { timeout: 10_000 });
    await vi.waitFor(
      () =>
        expect(recorded.logs.map((l) => l.message)).toContain(
          'the check was stopped after 1 of 2 command(s): nothing reported',
        ),
      { timeout: 10_000 },
    );
    expect(recorded.sent).toEqual([]);
  });

  it('stopped, starts no further command and reports nothing, but kills the running one only once the stopping step is committed', async () => {
    const pidFile = join(dir, 'held.pid');
    const second = join(dir, 'held-second');
    const recorded = recordingRun({ clock: new ManualClock(Date.UTC(2026, 4, 1)) });
    // The runtime runs these once the step that left Checking is durable: here, when the test says so.
    const ends: Array<() => void> = [];
    const run = { ...recorded.run, afterStop: (effect: () => void) => void ends.push(effect) };
    const commands = [`sleep 30 & echo $! > ${pidFile}; wait`, `touch ${second}`];
    const actor = createActor(checkRunner({ cwd: dir, maxFeedbackLines: 30, commands })(run), {
      input: { attempt: 1 },
    }).start();
    const child = await vi.waitFor(async () => Number(await readFile(pidFile, 'utf8')), { timeout: 10_000 });
    const kill = vi.spyOn(process, 'kill');
    onTestFinished(() => kill.mockRestore());
    actor.stop();
    expect(kill.mock.calls.filter(([target, signal]) => target < 0 && signal !== 0)).toEqual([]);
    expect(alive(child)).toBe(true);
    for (const end of ends.splice(0)) end();
    await vi.waitFor(() => expect(alive(child)).toBe(false), { timeout: 10_000 });
    await vi.waitFor(
      () =>
        expect(recorded.logs.map((l) => l.message)).toContain(
          'the check was stopped after 1 of 2 command(s): nothing reported',
        ),
      { timeout: 10_000 },
    );
    expect(existsSync(second)).toBe(false);
    expect(recorded.sent).toEqual([]);
  });

  it('kills a group that ignores SIGTERM once the grace period is over', async () => {
    const pidFile = join(dir, 'stubborn.pid');
    const { actor } = startChecks({ commands: [`trap "" TERM; sleep 30 & echo $! > ${pidFile}; wait`], graceMs: 1000 });
    const child = await vi.waitFor(async () => Number(await readFile(pidFile, 'utf8')), { timeout: 10_000 });
    const kill = vi.spyOn(process, 'kill');
    onTestFinished(() => kill.mockRestore());
    actor.stop();
    await vi.waitFor(() => expect(alive(child)).toBe(false), { timeout: 10_000 });
    // SIGTERM was ignored: only the SIGKILL sent once the grace period was over ended the group.
    expect(
      kill.mock.calls.filter(([target, signal]) => target < 0 && signal !== 0).map(([, signal]) => signal),
    ).toEqual(['SIGTERM', 'SIGKILL']);
  });
});

describe('the check feedback', () => {
  it('counts lines without the final newline and keeps none when told to', () => {
    expect(tail('a\nb\nc\n', 2)).toEqual({ lines: ['b', 'c'], total: 3 });
    expect(tail('a\nb', 5)).toEqual({ lines: ['a', 'b'], total: 2 });
    expect(tail('', 5)).toEqual({ lines: [], total: 0 });
    expect(checkFeedback([{ command: 'x', passed: false, exitCode: 1, signal: undefined, output: 'a\nb\n' }], 0)).toBe(
      '$ x  (exit code 1; last 0 of 2 lines)',
    );
  });
});

describe('the check runner in the task machine', () => {
  /** The task machine with the real check runner; events the runner sends are applied as the runtime would. */
  function taskWithChecks(commands: string[]) {
    const forward = (event: EventObject) => {
      const snapshot = actor.getSnapshot();
      if (!snapshot.can(event as TaskEvent)) throw explainRejection(snapshot, event);
      actor.send(event as TaskEvent);
    };
    const { run } = recordingRun({ forward });
    const machine = taskMachine.provide({
      actors: { checkRunner: checkRunner({ commands, cwd: dir, maxFeedbackLines: 2 })(run) },
    });
    const actor = createActor(machine, { input: { limits: { maxCheckRetries: 2 } } }).start();
    actor.send({ type: 'create_task', agent: 'supervisor:claude:1', task: 'make it pass' });
    actor.send({ type: 'check', agent: 'executor:codex:1' });
    return actor;
  }

  it('moves a failed check to Addressing with the feedback, as the machine expects it', async () => {
    const actor = taskWithChecks(['echo one; echo two; echo three; exit 1']);
    expect(taskView(actor.getSnapshot())).toMatchObject({ state: 'Checking', step: 'running' });
    await vi.waitFor(() => expect(taskView(actor.getSnapshot()).state).toBe('Addressing'), { timeout: 10_000 });
    expect(taskView(actor.getSnapshot())).toMatchObject({
      check_retries: 1,
      check_feedback: '$ echo one; echo two; echo three; exit 1  (exit code 1; last 2 of 3 lines)\ntwo\nthree',
      failure_reason: 'Commands failed: echo one; echo two; echo three; exit 1',
    });
    actor.stop();
  });

  it('moves a passing check to Checking (passed), ready to submit', async () => {
    const actor = taskWithChecks(['true']);
    await vi.waitFor(() => expect(taskView(actor.getSnapshot())).toMatchObject({ state: 'Checking', step: 'passed' }), {
      timeout: 10_000,
    });
    actor.stop();
  });
});
