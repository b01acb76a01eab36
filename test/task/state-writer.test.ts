/** STATE.json kept in step with the task run: written after each commit, last commit last. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { recoverTask, taskMachine, type RecoveringRun } from '../../machines/index.js';
import { ManualClock } from '../../src/actor-contract/clock.js';
import { readStateFile } from '../../src/task/state-file.js';
import { openTask } from '../support/task-session.js';
import { testDir } from '../stores/temp-dir.js';

const T0 = Date.UTC(2026, 10, 21, 7);
const X = 'executor:codex:1';

describe('STATE.json from the runtime', () => {
  it('follows every commit: the task, the lease with its expiry, the writer and its clock', async () => {
    const dir = testDir('state');
    writeFileSync(
      join(dir, 'ferrus.toml'),
      '[lease]\nttl_secs = 60\nheartbeat_interval_secs = 20\n[limits]\nmax_check_retries = 4\n',
    );
    const clock = new ManualClock(T0);
    const { session, close } = await openTask(dir, { clock });
    const file = () =>
      session.runtime
        .flush()
        .then(() => session.writerIdle())
        .then(() => readStateFile(join(dir, 'STATE.json')));
    await session.ensureRun();
    await session.send('supervisor:claude:1', { type: 'create_task', task: 'Write done.txt' });
    expect(await file()).toEqual({
      schema_version: 1,
      state: 'Executing',
      task: 'Write done.txt',
      check_retries: 0,
      review_cycles: 0,
      max_check_retries: 4,
      max_review_cycles: 3,
      updated_at: new Date(T0).toISOString(),
      owner_pid: process.pid,
      seq: 1,
    });

    clock.advance(1000);
    await session.send(X, { type: 'claim' });
    expect(await file()).toMatchObject({
      claimed_by: X,
      last_heartbeat: new Date(T0 + 1000).toISOString(),
      lease_until: new Date(T0 + 61_000).toISOString(),
    });
    expect((await file())?.lease_expired).toBeUndefined();

    // A burst of fire-and-forget heartbeats: the file ends at the last one.
    for (let i = 1; i <= 20; i++) {
      clock.advance(100);
      session.runtime.send('task', { type: 'heartbeat', agent: X });
    }
    expect(await file()).toMatchObject({
      last_heartbeat: new Date(T0 + 3000).toISOString(),
      lease_until: new Date(T0 + 63_000).toISOString(),
    });

    clock.set(T0 + 63_000); // the lease timer fires
    expect(await file()).toMatchObject({
      claimed_by: X,
      lease_expired: true,
      updated_at: new Date(T0 + 63_000).toISOString(),
    });

    // The holder's own lease ran out: it must claim again before it changes the task.
    expect(
      await session.send(X, { type: 'consult', question: 'Which file?' }).catch((e: { code: string }) => e.code),
    ).toBe('expired');
    await session.send(X, { type: 'claim' });
    await session.send(X, { type: 'consult', question: 'Which file?' });
    expect(await file()).toMatchObject({
      state: 'Consultation',
      step: 'asked',
      paused_state: 'Executing',
      consult_question: 'Which file?',
      claimed_by: X,
    });
    await close();
  });
});

describe('the task recovery hook', () => {
  const snapshotIn = (events: Array<Record<string, unknown>>) => {
    const actor = createActor(taskMachine).start();
    for (const event of events) actor.send({ at: T0, ...event } as never);
    return actor.getPersistedSnapshot() as unknown as RecoveringRun['snapshot'];
  };
  const checking = snapshotIn([
    { type: 'create_task', agent: 'supervisor:claude:1', task: 't' },
    { type: 'check', agent: X },
  ]);
  const executing = snapshotIn([{ type: 'create_task', agent: 'supervisor:claude:1', task: 't' }]);
  const run = (snapshot: RecoveringRun['snapshot'], alive: boolean): RecoveringRun => ({
    runId: 'task',
    snapshot,
    previousOwner: { id: 'o', pid: 4242, host: 'vm', alive },
    now: T0,
  });

  it('declares a check left running by a dead process interrupted, naming the process', () => {
    expect(recoverTask(run(checking, false))).toEqual([
      {
        type: 'check_failed',
        agent: 'checker:statewright:1',
        failed: ['(check interrupted)'],
        feedback:
          'the process running the check (pid 4242 on vm) is gone, so the check never finished. Run the check again.',
        interrupted: true,
      },
    ]);
  });

  it('leaves alone a check whose process lives, and every other state', () => {
    expect(recoverTask(run(checking, true))).toEqual([]);
    expect(recoverTask(run(executing, false))).toEqual([]);
  });

  it('an interrupted check spends no retry: the task goes to Addressing with the reason', () => {
    const actor = createActor(taskMachine, { snapshot: checking as never }).start();
    for (const event of recoverTask(run(checking, false))) actor.send({ ...event, at: T0 } as never);
    const snapshot = actor.getSnapshot();
    expect(snapshot.value).toEqual({ Active: { Working: 'Addressing' } });
    expect(snapshot.context.checkRetries).toBe(0);
    expect(snapshot.context.failureReason).toMatch(
      /^Check interrupted: the process running the check \(pid 4242 on vm\) is gone/,
    );
  });
});
