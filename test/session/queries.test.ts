import { describe, expect, it } from 'vitest';
import {
  activeSessions,
  inactiveSessions,
  sessionsAwaitingInput,
  terminalSessions,
} from '../../src/session/queries.js';
import { T0 } from '../machines/session-fixtures.js';
import { sessionRun } from './session-runs.js';

const runs = [
  sessionRun('s-done-early', 'completed', 0, 10),
  sessionRun('s-start', 'starting', 0, 40),
  sessionRun('s-run', 'running', 0, 30),
  sessionRun('s-wait', 'waiting_input', 0, 20, 2),
  sessionRun('s-failed-late', 'failed', 0, 50),
  sessionRun('s-wait-old', 'waiting_input', -60_000, 5),
  sessionRun('s-run-tie', 'running', 0, 30),
];
const ids = (xs: Array<{ session_id: string }>) => xs.map((x) => x.session_id);

describe('the seed queries over stored sessions', () => {
  it('lists active sessions (starting, running, waiting_input), most recent activity first', () => {
    const active = activeSessions(runs);
    expect(ids(active)).toEqual(['s-start', 's-run', 's-run-tie', 's-wait', 's-wait-old']);
    expect(active.map((s) => s.last_activity_at)).toEqual([
      T0 + 40_000,
      T0 + 30_000,
      T0 + 30_000,
      T0 + 20_000,
      T0 - 55_000,
    ]);
  });

  it('lists terminal sessions (completed, failed), most recently completed first', () => {
    const terminal = terminalSessions(runs);
    expect(ids(terminal)).toEqual(['s-failed-late', 's-done-early']);
    expect(terminal.map((s) => s.completed_at)).toEqual([T0 + 50_000, T0 + 10_000]);
  });

  it('lists sessions awaiting input with their pending approvals, longest waiting first', () => {
    const awaiting = sessionsAwaitingInput(runs);
    expect(awaiting.map((a) => [a.session.session_id, a.approvals.map((p) => [p.approval_id, p.tool_name])])).toEqual([
      ['s-wait-old', [['s-wait-old-approval-1', 'Bash']]],
      [
        's-wait',
        [
          ['s-wait-approval-1', 'Bash'],
          ['s-wait-approval-2', 'Bash'],
        ],
      ],
    ]);
  });

  it('does not list resolved approvals, nor sessions no longer waiting', () => {
    const waiting = sessionRun('s-partly', 'waiting_input', 0, 20, 2);
    const [, second] = waiting.snapshot.context.approvals.map((a) => a.approval_id);
    // Resolve the second approval on a copy of the stored snapshot: one is left pending.
    const partly = {
      runId: waiting.runId,
      snapshot: {
        ...waiting.snapshot,
        context: {
          ...waiting.snapshot.context,
          approvals: waiting.snapshot.context.approvals.map((a) =>
            a.approval_id === second ? { ...a, status: 'approved' as const } : a,
          ),
        },
      },
    };
    expect(sessionsAwaitingInput([partly]).map((a) => a.approvals.map((p) => p.approval_id))).toEqual([
      ['s-partly-approval-1'],
    ]);
    expect(sessionsAwaitingInput([sessionRun('s-ran', 'running', 0)])).toEqual([]);
  });

  it('finds sessions quiet for longer than a limit, longest first, never terminal ones', () => {
    const now = T0 + 100_000;
    expect(inactiveSessions(runs, now, 65_000).map((s) => [s.session.session_id, s.inactive_ms])).toEqual([
      ['s-wait-old', 155_000],
      ['s-wait', 80_000],
      ['s-run', 70_000],
      ['s-run-tie', 70_000],
    ]);
    expect(inactiveSessions(runs, now, 155_000)).toEqual([]);
  });

  it('refuses runs that are not sessions', () => {
    expect(() => activeSessions([{ runId: 'job-1', snapshot: { value: 'queued', context: {} as any } }])).toThrow(
      /Run 'job-1' is not a session/,
    );
  });

  it('gives no results for no sessions', () => {
    expect([activeSessions([]), terminalSessions([]), sessionsAwaitingInput([])]).toEqual([[], [], []]);
  });
});
