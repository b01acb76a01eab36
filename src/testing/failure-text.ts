/** A failed path as a person reads it: the path up to the step, the step, what XState did and what statewright did. */
import type { PathResult } from './drive-path.js';

const shown = (value: unknown) => (typeof value === 'string' ? value.replace(/\s*\n\s*/g, ' ') : JSON.stringify(value));

export function failureText(lifecycle: string, result: PathResult): string {
  const failure = result.failure;
  if (!failure) return `${lifecycle} ${result.path.id}: passed`;
  const events = ['start', ...result.path.events.map((e) => e.type)];
  const upTo = failure.event === 'verify' ? events : events.slice(0, failure.step + 1);
  return [
    `${lifecycle} ${result.path.id}: ${failure.message}`,
    `  path:        ${upTo.join(' → ')}`,
    `  step:        ${failure.event === 'verify' ? 'the end (verify)' : `${failure.step} (${failure.event})`}`,
    ...(failure.differs ? [`  differs in:  ${failure.differs.join(', ')}`] : []),
    `  XState:      ${shown(failure.xstate)}`,
    `  statewright: ${shown(failure.statewright)}`,
  ].join('\n');
}

/**
 * The failures of a lifecycle's paths, one per distinct fault (the same check at the same event,
 * saying the same), each shown on the shortest path that reaches it.
 */
export function shortestFailures(results: readonly PathResult[]): PathResult[] {
  const byFault = new Map<string, PathResult>();
  for (const result of results) {
    const f = result.failure;
    if (!f) continue;
    const key = `${f.check}|${f.event}|${f.message}`;
    const known = byFault.get(key);
    if (!known || f.step < known.failure!.step) byFault.set(key, result);
  }
  return [...byFault.values()];
}
