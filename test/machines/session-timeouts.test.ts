/**
 * The session's durable timers with the real deadline timer actor and a simulated clock: the start
 * timeout and approval timeouts fire at their stored deadlines, also after a restore.
 */
import { describe, expect, it } from 'vitest';
import { createActor, type Actor, type EventObject } from 'xstate';
import { SESSION_ERRORS, sessionMachine, type SessionInput } from '../../machines/session/index.js';
import { deadlineTimer } from '../../src/runtime/timers/deadline-timer.js';
import { ManualClock } from '../../src/actor-contract/clock.js';
import type { RunHandle, SendOptions } from '../../src/actor-contract/run-handle.js';
import { ev, input, recorder, T0 } from './session-fixtures.js';

type SessionActor = Actor<typeof sessionMachine>;

/** Hosts one session the way the runtime will: actors report through a run handle, timers read its clock. */
function host(clock: ManualClock, from: { input?: SessionInput; snapshot?: unknown }) {
  const sent: Array<{ event: EventObject; options: SendOptions | undefined }> = [];
  let actor: SessionActor | undefined;
  const run: RunHandle = {
    runId: 'session-1',
    machine: 'session',
    clock,
    send(event, options) {
      sent.push({ event, options });
      const sessionEvent = event as unknown as Parameters<SessionActor['send']>[0];
      if (options?.ifAccepted && !actor!.getSnapshot().can(sessionEvent)) return;
      actor!.send(sessionEvent);
    },
    afterCommit(effect) {
      effect();
    },
    afterStop(effect) {
      effect();
    },
    log() {},
  };
  const machine = sessionMachine.provide({ actors: { agent: recorder().logic, deadline: deadlineTimer(run) } });
  // A restored actor takes its snapshot, not an input.
  actor = createActor(
    machine,
    (from.snapshot ? { snapshot: from.snapshot } : { input: from.input }) as { input: SessionInput },
  );
  actor.start();
  return { actor, sent };
}

const persisted = (actor: SessionActor) => JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));

describe('the start timeout', () => {
  it('fails a session still starting 60 s after it was created, stamped with the deadline', () => {
    const clock = new ManualClock(T0);
    const { actor, sent } = host(clock, { input: input() });
    clock.advance(59_999);
    expect(actor.getSnapshot().value).toBe('starting');
    clock.advance(1);
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context).toMatchObject({
      error_message: SESSION_ERRORS.startTimeout,
      completed_at: T0 + 60_000,
      duration_ms: 60_000,
    });
    expect(sent).toEqual([
      {
        event: { type: 'START_TIMEOUT', at: T0 + 60_000 },
        options: expect.objectContaining({
          actor: 'timer',
          idempotencyKey: `deadline:START_TIMEOUT:${T0 + 60_000}`,
          ifAccepted: true,
        }),
      },
    ]);
  });

  it('is disarmed once the session id arrives', () => {
    const clock = new ManualClock(T0);
    const { actor } = host(clock, { input: input() });
    expect(clock.pendingTimers).toBe(1);
    actor.send(ev.session(T0 + 1_000));
    expect(clock.pendingTimers).toBe(0);
    clock.advance(120_000);
    expect(actor.getSnapshot().value).toBe('running');
  });

  it('keeps its original deadline when the session is restored after a daemon restart', () => {
    const before = new ManualClock(T0);
    const first = host(before, { input: input() });
    before.advance(10_000);
    const snapshot = persisted(first.actor);
    first.actor.stop();

    // The daemon comes back 20 s later: 30 s remain, not 60.
    const after = new ManualClock(T0 + 30_000);
    const { actor } = host(after, { snapshot });
    after.advance(29_999);
    expect(actor.getSnapshot().value).toBe('starting');
    after.advance(1);
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context).toMatchObject({ completed_at: T0 + 60_000, duration_ms: 60_000 });
  });

  it('fires at once, stamped with the missed deadline, when restored after it passed', () => {
    const first = host(new ManualClock(T0), { input: input() });
    const snapshot = persisted(first.actor);
    first.actor.stop();
    const late = new ManualClock(T0 + 3_600_000);
    const { actor } = host(late, { snapshot });
    late.advance(0);
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context.completed_at).toBe(T0 + 60_000);
  });
});

describe('the approval timeout', () => {
  const withTimeout = input({ config: { approval_timeout_ms: 600_000 } });

  it('fails the session when an approval stays pending past its deadline', () => {
    const clock = new ManualClock(T0);
    const { actor } = host(clock, { input: withTimeout });
    actor.send(ev.session(T0 + 1_000));
    clock.advance(2_000);
    actor.send(ev.approval(clock.now()));
    clock.advance(599_999);
    expect(actor.getSnapshot().value).toBe('waiting_input');
    clock.advance(1);
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context).toMatchObject({
      error_message: 'Interrupted while waiting for approval',
      completed_at: T0 + 602_000,
    });
    expect(actor.getSnapshot().context.approvals[0]!.status).toBe('expired');
  });

  it('is disarmed when the approval is resolved in time', () => {
    const clock = new ManualClock(T0);
    const { actor } = host(clock, { input: withTimeout });
    actor.send(ev.session(T0 + 1_000));
    actor.send(ev.approval(T0 + 2_000));
    expect(clock.pendingTimers).toBe(1);
    actor.send(ev.resolve(T0 + 60_000));
    expect(clock.pendingTimers).toBe(0);
    clock.advance(3_600_000);
    expect(actor.getSnapshot().value).toBe('running');
  });

  it('keeps its deadline across a restore', () => {
    const before = new ManualClock(T0);
    const first = host(before, { input: withTimeout });
    first.actor.send(ev.session(T0 + 1_000));
    first.actor.send(ev.approval(T0 + 2_000));
    before.advance(100_000);
    const snapshot = persisted(first.actor);
    first.actor.stop();

    const after = new ManualClock(T0 + 400_000);
    const { actor } = host(after, { snapshot });
    after.advance(201_999);
    expect(actor.getSnapshot().value).toBe('waiting_input');
    after.advance(1);
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context.completed_at).toBe(T0 + 602_000);
  });
});
