/**
 * hld's auto-approve rules on the session machine: auto_accept_edits approves the edit tools and
 * dangerously_skip_permissions every tool until its timeout, recorded as approved with the rule,
 * the status unchanged; and the tool calls Claude refused itself, recorded once per call.
 */
import { describe, expect, it } from 'vitest';
import type { SessionConfig } from '../../machines/session/index.js';
import { ev, input, startSession, T0 } from './session-fixtures.js';

function running(config: SessionConfig) {
  const session = startSession(input({ config }));
  session.actor.send(ev.session(T0 + 1_000));
  return session;
}

describe('auto-approve (hld)', () => {
  it.each(['Edit', 'Write', 'MultiEdit'])('auto_accept_edits approves %s at once: approved, still running', (tool) => {
    const { actor } = running({ auto_accept_edits: true });
    actor.send(ev.approval(T0 + 2_000, 'approval-1', tool));
    const snapshot = actor.getSnapshot();
    expect(snapshot.value).toBe('running');
    expect(snapshot.context.approvals).toEqual([
      expect.objectContaining({
        approval_id: 'approval-1',
        tool_name: tool,
        status: 'approved',
        resolved_at: T0 + 2_000,
        auto_approved: 'auto_accept_edits',
        comment: "approved by the session's auto_accept_edits",
      }),
    ]);
  });

  it('auto_accept_edits leaves any other tool to a person', () => {
    const { actor } = running({ auto_accept_edits: true });
    actor.send(ev.approval(T0 + 2_000, 'approval-1', 'Bash'));
    expect(actor.getSnapshot().value).toBe('waiting_input');
    expect(actor.getSnapshot().context.approvals[0]).toMatchObject({ status: 'pending' });
    expect(actor.getSnapshot().context.approvals[0]).not.toHaveProperty('auto_approved');
  });

  it('an edit asked while another call waits is approved without leaving waiting_input', () => {
    const { actor } = running({ auto_accept_edits: true });
    actor.send(ev.approval(T0 + 2_000, 'approval-1', 'Bash'));
    actor.send(ev.approval(T0 + 2_100, 'approval-2', 'Write'));
    expect(actor.getSnapshot().value).toBe('waiting_input');
    expect(actor.getSnapshot().context.approvals.map((a) => a.status)).toEqual(['pending', 'approved']);
  });

  it('dangerously_skip_permissions approves every tool until its timeout, then asks again', () => {
    const { actor } = running({ dangerously_skip_permissions: true, dangerously_skip_permissions_timeout_ms: 60_000 });
    actor.send(ev.approval(T0 + 59_999, 'approval-1', 'Bash'));
    expect(actor.getSnapshot().value).toBe('running');
    expect(actor.getSnapshot().context.approvals[0]).toMatchObject({
      status: 'approved',
      auto_approved: 'dangerously_skip_permissions',
    });
    actor.send(ev.approval(T0 + 60_000, 'approval-2', 'Bash'));
    expect(actor.getSnapshot().value).toBe('waiting_input');
    expect(actor.getSnapshot().context.approvals[1]).toMatchObject({ status: 'pending' });
  });

  it('no rule, no auto-approval', () => {
    const { actor } = running({});
    actor.send(ev.approval(T0 + 2_000, 'approval-1', 'Edit'));
    expect(actor.getSnapshot().value).toBe('waiting_input');
  });
});

describe("Claude's own permission denials", () => {
  it('records each refused tool call once, the result list adding what the line lacked', () => {
    const { actor } = running({});
    const denied = {
      type: 'agent.permission_denied',
      toolName: 'Write',
      toolUseId: 'toolu_1',
      message: 'not granted',
      at: T0 + 2_000,
    } as const;
    actor.send(denied);
    actor.send({ ...denied, at: T0 + 2_500 });
    actor.send({
      ...ev.result(T0 + 3_000),
      permissionDenials: [
        { toolName: 'Write', toolUseId: 'toolu_1', toolInput: { file_path: '/tmp/x' } },
        { toolName: 'Bash', toolUseId: 'toolu_2', toolInput: { command: 'rm -rf /' } },
      ],
    });
    expect(actor.getSnapshot().value).toBe('running');
    expect(actor.getSnapshot().context.permission_denials).toEqual([
      {
        tool_name: 'Write',
        tool_use_id: 'toolu_1',
        message: 'not granted',
        tool_input: { file_path: '/tmp/x' },
        at: T0 + 2_000,
      },
      { tool_name: 'Bash', tool_use_id: 'toolu_2', message: null, tool_input: { command: 'rm -rf /' }, at: T0 + 3_000 },
    ]);
  });
});
