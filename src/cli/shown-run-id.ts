import { runIdProblem } from '../runtime/call-arguments.js';
import { visibleJson } from '../runtime/visible-text.js';

/**
 * A run id as a terminal shows it: as it is, or, for one a caller could not use (stored before ids
 * were checked: a control character, an invisible one, a lone surrogate), quoted with those escaped,
 * so it cannot hide, rewrite the line, or pass for another id.
 */
export function shownRunId(runId: string): string {
  return runIdProblem(runId) === undefined ? runId : visibleJson(runId);
}
