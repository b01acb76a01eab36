import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SESSION_INTERRUPT_GRACE_MS,
  SESSION_AGENT_INTERRUPT,
  pendingSessionApprovalIds,
  SESSION_ERRORS,
} from '../../machines/session/index.js';
import { explainRejection, MetadataValidationError } from '../../src/graph/index.js';
import { ev, input, startSession, T0 } from './session-fixtures.js';

function running(config = {}) {
  const session = startSession(input({ config }));
  session.actor.send(ev.session(T0 + 1_000));
  return session;
}

describe('approvals', () => {
  it('moves running -> waiting_input and records the approval with its tool call', () => {
    const { actor, deadline } = running();
    actor.send(ev.approval(T0 + 2_000));
    const snapshot = actor.getSnapshot();
    expect(snapshot.value).toBe('waiting_input');
    expect(snapshot.context.last_activity_at).toBe(T0 + 2_000);
    expect(snapshot.context.approvals).toEqual([
      {
        approval_id: 'approval-1',
        tool_name: 'Bash',
        tool_input: { command: 'npm test' },
        tool_use_id: 'toolu_approval-1',
        requested_at: T0 + 2_000,
        expires_at: null,
        status: 'pending',
        resolved_at: null,
        comment: null,
      },
    ]);
    // No approval timeout configured: no timer beyond the (stopped) start timer.
    expect(deadline.starts).toHaveLength(1);
  });

  it.each([
    ['approved', undefined],
    ['denied', 'do not touch the lockfile'],
    ['responded', 'use pnpm instead'],
  ] as const)('moves back to running when the approval is %s', (decision, comment) => {
    const { actor } = running();
    actor.send(ev.approval(T0 + 2_000));
    actor.send(ev.resolve(T0 + 9_000, 'approval-1', decision, comment));
    const snapshot = actor.getSnapshot();
    expect(snapshot.value).toBe('running');
    expect(snapshot.context.last_activity_at).toBe(T0 + 9_000);
    expect(snapshot.context.approvals[0]).toMatchObject({
      status: decision,
      resolved_at: T0 + 9_000,
      comment: comment ?? null,
    });
    expect(pendingSessionApprovalIds(snapshot.context)).toEqual([]);
  });

  it('keeps waiting while other approvals are pending (parallel tool calls)', () => {
    const { actor } = running();
    actor.send(ev.approval(T0 + 2_000, 'approval-1'));
    actor.send(ev.approval(T0 + 2_001, 'approval-2', 'Edit'));
    expect(actor.getSnapshot().value).toBe('waiting_input');
    expect(pendingSessionApprovalIds(actor.getSnapshot().context)).toEqual(['approval-1', 'approval-2']);
    actor.send(ev.resolve(T0 + 3_000, 'approval-2', 'denied'));
    expect(actor.getSnapshot().value).toBe('waiting_input');
    expect(pendingSessionApprovalIds(actor.getSnapshot().context)).toEqual(['approval-1']);
    actor.send(ev.resolve(T0 + 4_000, 'approval-1'));
    expect(actor.getSnapshot().value).toBe('running');
  });

  it.each([
    ['an unknown id', [] as string[], 'approval-9', 'approval-1, approval-2'],
    ['an approval already resolved', ['approval-1'], 'approval-1', 'approval-2'],
  ])('refuses to resolve %s, and says which approvals are pending', (_, resolvedFirst, approvalId, pending) => {
    const { actor } = running();
    actor.send(ev.approval(T0 + 2_000, 'approval-1'));
    actor.send(ev.approval(T0 + 2_500, 'approval-2'));
    for (const id of resolvedFirst) actor.send(ev.resolve(T0 + 3_000, id));
    const event = ev.resolve(T0 + 4_000, approvalId);
    const before = actor.getSnapshot();
    expect(before.can(event)).toBe(false);
    const error = explainRejection(before, event) as MetadataValidationError;
    expect(error).toBeInstanceOf(MetadataValidationError);
    expect(error.invalid).toEqual([
      {
        field: 'approval_id',
        problem: `'${approvalId}' is not a pending approval of this session (pending: ${pending})`,
      },
    ]);
    actor.send(event);
    expect(actor.getSnapshot().context).toEqual(before.context);
  });

  it('refuses an approval id that was already used', () => {
    const { actor } = running();
    actor.send(ev.approval(T0 + 2_000, 'approval-1'));
    actor.send(ev.resolve(T0 + 3_000, 'approval-1'));
    const again = ev.approval(T0 + 4_000, 'approval-1');
    expect(actor.getSnapshot().can(again)).toBe(false);
    expect((explainRejection(actor.getSnapshot(), again) as MetadataValidationError).invalid[0]).toEqual({
      field: 'approval_id',
      problem: "'approval-1' was already requested in this session; approval ids are unique",
    });
  });

  it('refuses an approval request before the session runs, and a decision that does not exist', () => {
    const { actor } = startSession();
    expect(actor.getSnapshot().can(ev.approval(T0 + 500))).toBe(false);
    actor.send(ev.session());
    actor.send(ev.approval(T0 + 2_000));
    const bogus = { ...ev.resolve(T0 + 3_000), decision: 'maybe' } as any;
    expect(
      (explainRejection(actor.getSnapshot(), bogus) as MetadataValidationError).invalid.map((i) => i.field),
    ).toEqual(['decision']);
  });

  it('fails with "Interrupted while waiting for approval" on an interrupt, after SIGINT to the agent and its grace', () => {
    const { actor, agent } = startSession();
    actor.send(ev.spawned());
    actor.send(ev.session(T0 + 1_000));
    actor.send(ev.approval(T0 + 2_000));
    actor.send(ev.interrupt(T0 + 7_000, 'user left'));
    expect(actor.getSnapshot().value).toBe('waiting_input');
    // The grace's end: the timer's INTERRUPT.
    actor.send(ev.interrupt(T0 + 10_000));
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context).toMatchObject({
      error_message: 'Interrupted while waiting for approval',
      completed_at: T0 + 10_000,
      duration_ms: 10_000,
    });
    expect(agent.received).toEqual([SESSION_AGENT_INTERRUPT, SESSION_AGENT_INTERRUPT]);
    expect(agent.log).toEqual(['start', 'agent.signal', 'agent.signal', 'stop']);
  });

  it('fails with the same message on an approval timeout, marking the approval expired', () => {
    const { actor } = running();
    actor.send(ev.approval(T0 + 2_000));
    actor.send(ev.approvalTimeout(T0 + 602_000));
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context.error_message).toBe(SESSION_ERRORS.interruptedWaiting);
    expect(actor.getSnapshot().context.approvals[0]).toMatchObject({ status: 'expired', resolved_at: T0 + 602_000 });
  });

  it('ignores a timeout for an approval that was already resolved', () => {
    const { actor } = running();
    actor.send(ev.approval(T0 + 2_000, 'approval-1'));
    actor.send(ev.approval(T0 + 2_100, 'approval-2'));
    actor.send(ev.resolve(T0 + 3_000, 'approval-1'));
    expect(actor.getSnapshot().can(ev.approvalTimeout(T0 + 602_000, 'approval-1'))).toBe(false);
  });

  it('fails with the exit reason when the agent dies while waiting', () => {
    const { actor } = running();
    actor.send(ev.approval(T0 + 2_000));
    actor.send(ev.exited(T0 + 3_000, null));
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context.error_message).toBe(
      'Claude exited while waiting for approval: killed by SIGKILL',
    );
  });

  it('still counts tokens and the result that arrive while waiting', () => {
    const { actor } = running();
    actor.send(ev.approval(T0 + 2_000));
    actor.send(ev.assistant(T0 + 2_001, 10, 5));
    actor.send(ev.result(T0 + 2_002));
    expect(actor.getSnapshot().value).toBe('waiting_input');
    expect(actor.getSnapshot().context.tokens.output).toBe(5);
    expect(actor.getSnapshot().context.result?.cost_usd).toBe(0.0421);
  });

  describe('with an approval timeout configured', () => {
    it('sets each deadline and arms one timer for the earliest pending one', () => {
      const { actor, deadline } = running({ approval_timeout_ms: 600_000 });
      actor.send(ev.approval(T0 + 2_000, 'approval-1'));
      expect(actor.getSnapshot().context.approvals[0]!.expires_at).toBe(T0 + 602_000);
      actor.send(ev.approval(T0 + 5_000, 'approval-2'));
      actor.send(ev.resolve(T0 + 6_000, 'approval-1'));
      // The start timer, then: approval-1's timer, re-armed for approval-1 after the second
      // request, then for approval-2 once approval-1 is resolved.
      expect(deadline.starts.slice(1)).toEqual([
        { deadline: T0 + 602_000, event: { type: 'APPROVAL_TIMEOUT', approval_id: 'approval-1' } },
        { deadline: T0 + 602_000, event: { type: 'APPROVAL_TIMEOUT', approval_id: 'approval-1' } },
        { deadline: T0 + 605_000, event: { type: 'APPROVAL_TIMEOUT', approval_id: 'approval-2' } },
      ]);
      expect(deadline.running).toBe(1);
      actor.send(ev.resolve(T0 + 7_000, 'approval-2'));
      expect(actor.getSnapshot().value).toBe('running');
      expect(deadline.running).toBe(0);
    });

    it('denies a timed-out approval to the running agent first, and fails the session on its exit', () => {
      const { actor, agent, deadline } = startSession(input({ config: { approval_timeout_ms: 60_000 } }));
      actor.send(ev.spawned());
      actor.send(ev.session(T0 + 1_000));
      actor.send(ev.approval(T0 + 2_000));
      actor.send(ev.approvalTimeout(T0 + 62_000));
      // Not failed yet: the agent is not stopped (no SIGINT, no SIGTERM), its permission prompt
      // call reads the expired approval and answers Claude with a deny.
      const denied = actor.getSnapshot();
      expect(denied.value).toBe('running');
      expect(agent.running).toBe(1);
      expect(agent.received).toEqual([]);
      expect(denied.context.approvals[0]).toMatchObject({ status: 'expired', resolved_at: T0 + 62_000 });
      expect(denied.context.interrupt_requested).toEqual({
        message: SESSION_ERRORS.interruptedWaiting,
        at: T0 + 62_000,
        grace_until: T0 + 62_000 + DEFAULT_SESSION_INTERRUPT_GRACE_MS,
        approval_id: 'approval-1',
      });
      expect(deadline.starts.at(-1)).toEqual({
        deadline: T0 + 62_000 + DEFAULT_SESSION_INTERRUPT_GRACE_MS,
        event: { type: 'INTERRUPT' },
      });
      // Claude reports the deny and exits 0 with a successful result: the session fails as the seed says, with its cost.
      actor.send(ev.result(T0 + 63_000));
      actor.send(ev.exited(T0 + 63_500, 0));
      expect(actor.getSnapshot().value).toBe('failed');
      expect(actor.getSnapshot().context).toMatchObject({
        error_message: SESSION_ERRORS.interruptedWaiting,
        cost_usd: 0.0421,
        completed_at: T0 + 63_500,
      });
    });

    it('fails the session at the grace’s end when the denied agent does not exit', () => {
      const { actor } = startSession(input({ config: { approval_timeout_ms: 60_000 } }));
      actor.send(ev.spawned());
      actor.send(ev.session(T0 + 1_000));
      actor.send(ev.approval(T0 + 2_000, 'approval-1'));
      actor.send(ev.approval(T0 + 3_000, 'approval-2'));
      actor.send(ev.approvalTimeout(T0 + 62_000, 'approval-1'));
      // The other approval still waits for a person.
      expect(actor.getSnapshot().value).toBe('waiting_input');
      actor.send(ev.interrupt(T0 + 62_000 + DEFAULT_SESSION_INTERRUPT_GRACE_MS));
      expect(actor.getSnapshot().value).toBe('failed');
      expect(actor.getSnapshot().context.error_message).toBe(SESSION_ERRORS.interruptedWaiting);
    });
  });
});
