import { describe, expect, it } from 'vitest';
import { sessionStatusChanged } from '../../src/session/status-changed.js';
import { ev, startSession, T0 } from '../machines/session-fixtures.js';

describe('session_status_changed', () => {
  it('is given for each status change of a session, with the seed payload, and not for record updates', () => {
    const { actor } = startSession();
    const changes: unknown[] = [];
    let before = actor.getSnapshot();
    for (const event of [
      ev.spawned(),
      ev.session(),
      ev.approval(T0 + 2_000),
      ev.approval(T0 + 2_100, 'approval-2'),
      ev.resolve(T0 + 3_000),
      ev.resolve(T0 + 3_100, 'approval-2'),
      // A session with an agent: the first INTERRUPT asks it to stop (SIGINT, still running), the second fails it.
      ev.interrupt(T0 + 4_000),
      ev.interrupt(T0 + 4_100),
    ]) {
      actor.send(event as any);
      const change = sessionStatusChanged('s1', before, actor.getSnapshot());
      if (change) changes.push(change);
      before = actor.getSnapshot();
    }
    expect(changes).toEqual([
      { type: 'session_status_changed', session_id: 's1', old_status: 'starting', new_status: 'running' },
      { type: 'session_status_changed', session_id: 's1', old_status: 'running', new_status: 'waiting_input' },
      { type: 'session_status_changed', session_id: 's1', old_status: 'waiting_input', new_status: 'running' },
      { type: 'session_status_changed', session_id: 's1', old_status: 'running', new_status: 'failed' },
    ]);
  });

  it('refuses snapshots that are not sessions', () => {
    expect(() => sessionStatusChanged('job-1', { value: 'queued' }, { value: 'running' })).toThrow(
      `Run 'job-1' is not a session: states "queued" -> "running"`,
    );
  });
});
