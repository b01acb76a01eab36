/**
 * A refused approval decision in the words its docs promise: whoever sends APPROVAL_RESOLVED (the
 * daemon's approve, serve's event route, the view, `statewright send`), an approval that is not
 * pending (decided already, expired, unknown) is an `ApprovalNotPendingError`, not the machine's
 * InvalidTransitionError.
 */
import { InvalidTransitionError } from '../graph/invalid-transition-error.js';
import { MetadataValidationError } from '../graph/metadata-guard.js';
import type { Runtime } from '../runtime/runtime.js';
import { asSessionRun } from './queries.js';
import { sessionRecord } from '../../machines/session/index.js';
import { ApprovalNotPendingError } from './session-daemon-api.js';

/** `error` as an ApprovalNotPendingError when it refused a session's APPROVAL_RESOLVED; otherwise `error`. */
export async function approvalRefusal(
  runtime: Runtime,
  runId: string,
  event: { type: string; approval_id?: unknown; decision?: unknown },
  error: unknown,
): Promise<unknown> {
  if (event.type !== 'APPROVAL_RESOLVED' || typeof event.approval_id !== 'string') return error;
  if (!(error instanceof InvalidTransitionError || error instanceof MetadataValidationError)) return error;
  const run = await runtime.getSnapshot(runId);
  if (run.machine !== 'session') return error;
  return new ApprovalNotPendingError(
    sessionRecord(asSessionRun(run)),
    event.approval_id,
    String(event.decision ?? 'resolved'),
    error,
  );
}
