/** Stored session runs for the query and monitor tests, each driven to its status by real events. */
import type { SessionRun, SessionStatus } from '../../machines/session/index.js';
import { ev, input, startSession, T0 } from '../machines/session-fixtures.js';

/**
 * A session created at `T0 + offset` whose last event is at `T0 + offset + 1_000 * last`;
 * `approvals` pending approvals are requested one second apart.
 */
export function sessionRun(runId: string, status: SessionStatus, offset: number, last = 5, approvals = 1): SessionRun {
  const at = (s: number) => T0 + offset + 1_000 * s;
  const { actor } = startSession(input({ created_at: T0 + offset }));
  const events: Record<SessionStatus, object[]> = {
    starting: [ev.spawned(at(last))],
    running: [ev.session(at(1)), ev.assistant(at(last))],
    waiting_input: [
      ev.session(at(1)),
      ...Array.from({ length: approvals }, (_, i) =>
        ev.approval(at(last - approvals + 1 + i), `${runId}-approval-${i + 1}`),
      ),
    ],
    completed: [ev.session(at(1)), ev.result(at(2)), ev.exited(at(last), 0)],
    failed: [ev.session(at(1)), ev.exited(at(last), 1)],
  };
  for (const event of events[status]) actor.send(event as any);
  if (actor.getSnapshot().value !== status) throw new Error(`fixture ${runId} did not reach ${status}`);
  const snapshot = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
  actor.stop();
  return { runId, snapshot };
}
