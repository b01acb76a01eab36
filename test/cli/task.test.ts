/** `statewright task ...` as people and agents run it: the built bin, a real process per call. */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { STILL_WAITING } from '../../src/cli/task/consult.js';
import { readStateFile } from '../../src/task/state-file.js';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';
import { until } from '../support/until.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;

/** A project folder with a ferrus.toml whose one check passes once done.txt exists. */
function project(extra = '') {
  const dir = testDir('task');
  writeFileSync(
    join(dir, 'ferrus.toml'),
    `[limits]\nmax_review_cycles = 2\nwait_timeout_secs = 5\n\n[checks]\ncommands = ["test -f done.txt || { echo 'done.txt is missing'; exit 1; }"]\n${extra}`,
  );
  const task = async (...args: string[]) => {
    const subprocess = startCommand(process.execPath, [bin, 'task', ...args, '--dir', dir], { reject: false });
    return Object.assign(await subprocess, { pid: subprocess.pid! });
  };
  return { dir, task };
}

const S = ['--as', 'supervisor:claude:1'];
const X = ['--as', 'executor:codex:1'];

describe('statewright task', () => {
  it('takes a task from create through a failed and a passing check to submit and approve, with STATE.json after each step', async () => {
    const { dir, task } = project();
    const created = await task('create', 'Write done.txt', ...S);
    expect([created.exitCode, created.stdout.split('\n').slice(0, 2)]).toEqual([
      0,
      ['task is Executing', 'task: Write done.txt'],
    ]);
    expect(await readStateFile(join(dir, 'STATE.json'))).toMatchObject({
      state: 'Executing',
      task: 'Write done.txt',
      check_retries: 0,
      owner_pid: created.pid,
    });

    const failed = await task('check', ...X);
    expect(failed.exitCode).toBe(1);
    expect(failed.stdout).toMatch(/^task is Addressing\n/);
    expect(failed.stdout).toContain('claimed by executor:codex:1 until ');
    expect(failed.stdout).toContain('done.txt is missing');
    const afterFailure = await readStateFile(join(dir, 'STATE.json'));
    expect(afterFailure).toMatchObject({
      state: 'Addressing',
      check_retries: 1,
      claimed_by: 'executor:codex:1',
      owner_pid: failed.pid,
    });
    expect(afterFailure?.check_feedback).toContain('done.txt is missing');
    expect(Date.parse(afterFailure!.lease_until!) - Date.parse(afterFailure!.last_heartbeat!)).toBe(90_000);

    writeFileSync(join(dir, 'done.txt'), 'done\n');
    const passed = await task('check', ...X);
    expect([passed.exitCode, passed.stdout.split('\n')[0]]).toEqual([0, 'task is Checking (checks passed)']);
    expect(await readStateFile(join(dir, 'STATE.json'))).toMatchObject({
      state: 'Checking',
      step: 'passed',
      check_retries: 0,
    });

    const submitted = await task('submit', 'Wrote done.txt', ...X);
    expect([submitted.exitCode, submitted.stdout.split('\n')[0]]).toEqual([0, 'task is Reviewing']);
    const reviewing = await readStateFile(join(dir, 'STATE.json'));
    expect(reviewing).toMatchObject({ state: 'Reviewing', submission: 'Wrote done.txt' });
    expect(reviewing?.claimed_by).toBeUndefined(); // submit clears the executor's lease

    const approved = await task('approve', ...S);
    expect([approved.exitCode, approved.stdout.split('\n')[0]]).toEqual([0, 'task is Complete']);
    expect(await readStateFile(join(dir, 'STATE.json'))).toMatchObject({
      state: 'Complete',
      schema_version: 1,
      owner_pid: approved.pid,
    });

    const status = await task('status');
    expect(status.stdout.split('\n').slice(0, 2)).toEqual(['task is Complete', 'task: Write done.txt']);
    const history = await execa('node', [
      bin,
      'history',
      'task',
      '--store',
      `sqlite:${join(dir, '.statewright/state.db')}`,
    ]);
    expect(history.stdout.match(/--\w+-->/g)).toEqual([
      '--create_task-->',
      '--claim-->',
      '--check-->',
      '--check_failed-->',
      '--claim-->',
      '--check-->',
      '--check_passed-->',
      '--claim-->',
      '--submit-->',
      '--claim-->',
      '--approve-->',
    ]);
  });

  it('refuses a wrong role, a missing task, a bad agent id and a held lease with messages that say what to do', async () => {
    const { task } = project();
    const missing = await task('check', ...X);
    expect([missing.exitCode, missing.stderr]).toEqual([
      1,
      expect.stringMatching(
        /^statewright: No task in .*: create one first with `statewright task create --as supervisor:<vendor>:1 "<what to do>"`\.$/,
      ),
    ]);

    await task('create', 'Write done.txt', ...S);
    const wrongRole = await task('check', ...S);
    expect([wrongRole.exitCode, wrongRole.stderr]).toEqual([
      1,
      "statewright: Role 'supervisor' may not check (in state 'Active.Working.Executing'): only 'executor' may check.",
    ]);
    const wrongState = await task('submit', 'mine', ...X);
    expect([wrongState.exitCode, wrongState.stderr]).toEqual([
      1,
      "statewright: Invalid transition: cannot apply event 'submit' in state 'Active.Working.Executing'; 'Active.Working.Executing' accepts check, claim, consult, heartbeat, lease_expired, ask_human",
    ]);
    const noAgent = await task('check');
    expect([noAgent.exitCode, noAgent.stderr]).toEqual([
      2,
      'statewright: task check needs the agent doing it: --as role:vendor:index, e.g. --as executor:codex:1',
    ]);
    const badAgent = await task('check', '--as', 'bob');
    expect(badAgent.exitCode).toBe(2);
    expect(badAgent.stderr).toMatch(
      /^statewright: option '--as <agent>' argument 'bob' is invalid\. Expected role:vendor:index/,
    );

    expect((await task('claim', ...X)).exitCode).toBe(0);
    const other = await task('check', '--as', 'executor:codex:2');
    expect(other.exitCode).toBe(1);
    expect(other.stderr).toMatch(
      /^statewright: Lease refused \(claimed_by_other\): executor:codex:2 may not claim in state 'Active\.Working\.Executing'\. The task is claimed by executor:codex:1 until \d{4}-.*Z \(unless renewed\)\.$/,
    );
    const heartbeat = await task('heartbeat', '--as', 'executor:codex:2');
    expect(heartbeat.stderr).toMatch(/Lease refused \(claimed_by_other\)/);
  });

  it('consults the supervisor from another process, times out into resume, and resumes Consultation from the persisted state', async () => {
    const { dir, task } = project();
    await task('create', 'Write done.txt', ...S);
    // Nobody answers while consult waits, so its wait runs out however slow the machine is; the shortest wait makes it quick.
    const settings = readFileSync(join(dir, 'ferrus.toml'), 'utf8');
    writeFileSync(join(dir, 'ferrus.toml'), settings.replace('wait_timeout_secs = 5', 'wait_timeout_secs = 1'));
    const asked = await task('consult', 'Which file name?', ...X);
    expect([asked.exitCode, asked.stdout.split('\n')[0], asked.stderr]).toEqual([
      STILL_WAITING,
      'task is Consultation (waiting for the response), paused from Executing',
      'statewright: no response from the supervisor within 1s. Wait again with: statewright task resume --as executor:codex:1',
    ]);
    // The resume that waits again is answered from another process. Its wait outlasts the test, so
    // it ends on the answer, not on the clock, however long each process takes to start.
    writeFileSync(join(dir, 'ferrus.toml'), settings.replace('wait_timeout_secs = 5', 'wait_timeout_secs = 86400'));
    const askedAt = (await readStateFile(join(dir, 'STATE.json')))!.seq!;
    const resumed = task('resume', ...X);
    let resumeEnded: Awaited<typeof resumed> | undefined;
    void resumed.then((result) => (resumeEnded = result));
    // The resume claims the task once it has seen the question unanswered, then waits: STATE.json shows that claim.
    await until(
      'the resume to wait for the response',
      async () => {
        if (resumeEnded)
          throw new Error(
            `resume ended before waiting for the response (exit ${resumeEnded.exitCode}): ${resumeEnded.stderr || resumeEnded.stdout}`,
          );
        return ((await readStateFile(join(dir, 'STATE.json')))?.seq ?? 0) > askedAt;
      },
      100_000,
    );
    const answered = await task('answer', 'done.txt, as the task says', ...S);
    expect(answered.stdout.split('\n')[0]).toBe('task is Consultation (response in), paused from Executing');
    const result = await resumed;
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split('\n').slice(0, 2)).toEqual([
      'response: done.txt, as the task says',
      'task is Executing',
    ]);
    expect(await readStateFile(join(dir, 'STATE.json'))).toMatchObject({
      state: 'Executing',
      claimed_by: 'executor:codex:1',
    });
  });

  it('asks a person, who answers, and the task goes back to where it was', async () => {
    const { task } = project();
    await task('create', 'Write done.txt', ...S);
    expect((await task('ask', 'May I write to the repository root?', ...X)).stdout.split('\n')[0]).toBe(
      'task is AwaitingHuman, paused from Executing',
    );
    expect((await task('answer', 'yes', '--as', 'executor:codex:1')).stderr).toMatch(/Role 'executor' may not answer/);
    expect((await task('answer', 'yes', '--as', 'human:me:1')).stdout.split('\n')[0]).toBe('task is Executing');
  });

  it('resumes a check whose process was killed: recovery declares it interrupted, and it runs again', async () => {
    const { dir, task } = project('');
    // A project whose check waits while `hold` exists.
    writeFileSync(
      join(dir, 'ferrus.toml'),
      `[checks]\ncommands = ["if [ -f hold ]; then echo $$ > check.pid; while [ -f hold ]; do sleep 0.05; done; fi"]\n`,
    );
    await task('create', 'Write done.txt', ...S);
    writeFileSync(join(dir, 'hold'), '');
    const first = startCommand(process.execPath, [bin, 'task', 'check', ...X, '--dir', dir], { reject: false });
    // The shell creates check.pid before it writes the pid: wait for the whole line (kill(0) would hit this test's own group).
    const pidFile = join(dir, 'check.pid');
    const checkPid = await until(
      'the check to start',
      () => existsSync(pidFile) && /^(\d+)\n$/.exec(readFileSync(pidFile, 'utf8'))?.[1],
      100_000,
      50,
    );
    first.kill('SIGKILL');
    await first;
    process.kill(Number(checkPid), 'SIGKILL');
    rmSync(join(dir, 'hold'));

    const resumed = await task('resume', ...X);
    expect([resumed.exitCode, resumed.stdout.split('\n')[0]]).toEqual([0, 'task is Checking (checks passed)']);
    const history = await execa('node', [
      bin,
      'history',
      'task',
      '--store',
      `sqlite:${join(dir, '.statewright/state.db')}`,
    ]);
    expect(history.stdout).toMatch(
      new RegExp(
        `Checking\\.Running --check_failed--> Active\\.Working\\.Addressing .*pid ${first.pid} .*"interrupted":true.* by recovery`,
      ),
    );
    expect(history.stdout.split('\n').at(-1)).toMatch(
      /Checking\.Running --check_passed--> Active\.Working\.Checking\.Passed/,
    );
  });
});
