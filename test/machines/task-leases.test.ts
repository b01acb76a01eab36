/** Leases inside the task machine, driven through the durable runtime on a ManualClock. */
import { describe, expect, it } from 'vitest';
import { InvalidTransitionError, LeaseError, lifecycles, type TaskEvent } from '../../machines/index.js';
import { createRuntime, ManualClock } from '../../src/runtime/index.js';
import { memoryStore, type Store } from '../../src/stores/index.js';

const T0 = Date.UTC(2026, 10, 21, 6);
const TTL = 90_000;
const S = 'supervisor:claude:1';
const X1 = 'executor:codex:1';
const X2 = 'executor:codex:2';

async function taskRun(store: Store = memoryStore(), clock = new ManualClock(T0)) {
  const rt = await createRuntime({ store, machines: lifecycles, clock });
  await rt.start('task', { id: 't', input: { lease: { ttlMs: TTL } } });
  const send = (event: TaskEvent) => rt.dispatch('t', event);
  await send({ type: 'create_task', agent: S, task: 'Add a --verbose flag' });
  return { rt, clock, store, send, context: async () => (await rt.getSnapshot('t')).context };
}

describe('task leases', () => {
  it('a claim records claimed_by and lease_until = now + ttl; the holder re-claims idempotently and heartbeats renew it', async () => {
    const { rt, clock, send, context } = await taskRun();
    await send({ type: 'claim', agent: X1 });
    expect((await context()).lease).toEqual({ claimedBy: X1, leaseUntil: T0 + TTL, lastHeartbeat: T0 });
    clock.advance(10_000);
    await send({ type: 'claim', agent: X1 });
    expect((await context()).lease).toEqual({
      claimedBy: X1,
      leaseUntil: T0 + 10_000 + TTL,
      lastHeartbeat: T0 + 10_000,
    });
    clock.advance(30_000);
    await send({ type: 'heartbeat', agent: X1 });
    expect((await context()).lease).toEqual({
      claimedBy: X1,
      leaseUntil: T0 + 40_000 + TTL,
      lastHeartbeat: T0 + 40_000,
    });
    await rt.close();
  });

  it('refuses every change by another agent of the role while the lease lives, naming the holder and expiry', async () => {
    const { rt, send } = await taskRun();
    await send({ type: 'claim', agent: X1 });
    const until = new Date(T0 + TTL).toISOString();
    for (const event of [
      { type: 'check', agent: X2 },
      { type: 'claim', agent: X2 },
      { type: 'consult', agent: X2, question: 'which?' },
    ] as TaskEvent[]) {
      const error = await send(event).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LeaseError);
      expect(error).toBeInstanceOf(InvalidTransitionError);
      expect(error).toMatchObject({
        code: 'claimed_by_other',
        holder: X1,
        leaseUntil: T0 + TTL,
        agent: X2,
        event: event.type,
      });
      expect((error as Error).message).toBe(
        `Lease refused (claimed_by_other): ${X2} may not ${event.type} in state 'Active.Working.Executing'. The task is claimed by ${X1} until ${until} (unless renewed).`,
      );
    }
    // Other roles are not bound by the executor's lease: the supervisor may still ask a person.
    await send({ type: 'ask_human', agent: S, question: 'Scope?' });
    expect((await rt.getSnapshot('t')).state).toBe('AwaitingHuman');
    await rt.close();
  });

  it('heartbeats from anyone but the live holder fail with not_claimed, claimed_by_other or expired', async () => {
    const { rt, clock, send } = await taskRun();
    const code = (event: TaskEvent) =>
      send(event).then(
        () => 'accepted',
        (e: LeaseError) => e.code,
      );
    expect(await code({ type: 'heartbeat', agent: X1 })).toBe('not_claimed');
    await send({ type: 'claim', agent: X1 });
    expect(await code({ type: 'heartbeat', agent: X2 })).toBe('claimed_by_other');
    clock.advance(TTL); // the timer fires at lease_until
    await rt.flush();
    expect(await code({ type: 'heartbeat', agent: X1 })).toBe('expired');
    expect(await code({ type: 'check', agent: X1 })).toBe('expired');
    await rt.close();
  });

  it('expires the lease by the durable timer, after which another agent takes over and the old holder is refused', async () => {
    const { rt, clock, send, context } = await taskRun();
    await send({ type: 'claim', agent: X1 });
    clock.advance(TTL - 1);
    await rt.flush();
    expect((await context()).leaseExpired).toBe(false);
    clock.advance(1);
    await rt.flush();
    expect((await context()).leaseExpired).toBe(true);
    const expiry = (await rt.history('t')).at(-1)!;
    expect(expiry).toMatchObject({
      actor: 'timer',
      event: { type: 'lease_expired', holder: X1, leaseUntil: T0 + TTL, at: T0 + TTL },
    });

    await send({ type: 'claim', agent: X2 });
    expect((await context()).lease).toEqual({ claimedBy: X2, leaseUntil: T0 + 2 * TTL, lastHeartbeat: T0 + TTL });
    expect(await send({ type: 'check', agent: X1 }).catch((e: LeaseError) => [e.code, e.holder])).toEqual([
      'claimed_by_other',
      X2,
    ]);
    await send({ type: 'check', agent: X2 });
    expect((await rt.getSnapshot('t')).state).toBe('Active.Working.Checking.Running');
    await rt.close();
  });

  it('keeps the timer across a restart: a new runtime fires it at the recorded lease_until', async () => {
    const store = memoryStore();
    const first = await taskRun(store);
    await first.send({ type: 'claim', agent: X1 });
    await first.rt.close();

    const clock = new ManualClock(T0 + 1000);
    const rt = await createRuntime({ store, machines: lifecycles, clock });
    await rt.flush();
    expect((await rt.getSnapshot('t')).context.leaseExpired).toBe(false);
    clock.set(T0 + TTL);
    await rt.flush();
    expect((await rt.getSnapshot('t')).context.leaseExpired).toBe(true);
    expect((await rt.history('t')).at(-1)!.event).toMatchObject({ type: 'lease_expired', at: T0 + TTL });
    await rt.close();
  });

  it('clears the lease on submit and approve (ferrus), so the supervisor can claim the review', async () => {
    const { rt, send, context } = await taskRun();
    await send({ type: 'claim', agent: X1 });
    await send({ type: 'check', agent: X1 });
    await send({ type: 'check_passed', agent: 'checker:statewright:1' });
    await send({ type: 'submit', agent: X1, summary: 'done' });
    expect((await context()).lease).toBeUndefined();
    await send({ type: 'claim', agent: S });
    expect((await context()).lease?.claimedBy).toBe(S);
    await send({ type: 'approve', agent: S });
    expect((await context()).lease).toBeUndefined();
    expect(Object.keys(((await rt.getSnapshot('t')).snapshot as { children: object }).children)).toEqual([]); // no timer left behind
    await rt.close();
  });

  it('refuses a stale timer: a renewed lease does not expire at the old instant', async () => {
    const { rt, clock, send, context } = await taskRun();
    await send({ type: 'claim', agent: X1 });
    clock.advance(TTL / 2);
    await send({ type: 'heartbeat', agent: X1 });
    const stale = await send({ type: 'lease_expired', holder: X1, leaseUntil: T0 + TTL, at: T0 + TTL }).catch(
      (e: Error) => e,
    );
    expect(stale).toBeInstanceOf(InvalidTransitionError);
    expect((stale as Error).message).toMatch(/does not match a live lease/);
    clock.advance(TTL / 2);
    await rt.flush();
    expect((await context()).leaseExpired).toBe(false);
    await rt.close();
  });

  it('drops a check result once the executor that asked for it lost the task, but not a declared interruption', async () => {
    const { rt, clock, send } = await taskRun();
    await send({ type: 'claim', agent: X1 });
    await send({ type: 'check', agent: X1 });
    clock.advance(TTL);
    await rt.flush();
    await send({ type: 'claim', agent: X2 }); // X1's process hung past its lease; X2 took over
    const late = await send({ type: 'check_passed', agent: 'checker:statewright:1' }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(LeaseError);
    expect(late).toMatchObject({
      code: 'claimed_by_other',
      holder: X2,
      agent: `checker:statewright:1 (checking for ${X1})`,
    });
    expect((await rt.getSnapshot('t')).state).toBe('Active.Working.Checking.Running');
    await send({
      type: 'check_failed',
      agent: 'checker:statewright:1',
      failed: ['(check interrupted)'],
      feedback: 'gone',
      interrupted: true,
    });
    expect((await rt.getSnapshot('t')).state).toBe('Active.Working.Addressing');
    await rt.close();
  });

  it('migrates a task stored by version 1 (no lease in its context) and leases it from then on', async () => {
    const store = memoryStore();
    const first = await taskRun(store);
    await first.rt.close();
    const row = (await store.load('t'))!;
    const { leaseTtlMs, lease, leaseExpired, checkRequestedBy, ...v1context } = (
      row.snapshot as { context: Record<string, unknown> }
    ).context;
    await store.commit([
      {
        run: { ...row, version: 1, seq: row.seq + 1, snapshot: { ...(row.snapshot as object), context: v1context } },
        expectedSeq: row.seq,
      },
    ]);

    const rt = await createRuntime({ store, machines: lifecycles, clock: new ManualClock(T0) });
    await rt.dispatch('t', { type: 'claim', agent: X1 });
    const after = await rt.getSnapshot('t');
    expect([after.version, after.context.lease]).toEqual([
      2,
      { claimedBy: X1, leaseUntil: T0 + 90_000, lastHeartbeat: T0 },
    ]);
    await rt.close();
  });
});
