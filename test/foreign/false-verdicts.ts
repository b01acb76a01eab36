/**
 * What plain XState shows `check` wrong about: the leaf states each corpus path rests in, step by
 * step, and so the verdicts that path disproves. A state XState rests in is not `unreachable`; a
 * state XState leaves is not without a way out; a machine with no states whose paths take events
 * is not stuck.
 */
import type { StateValue } from 'xstate';
import type { CheckViolation } from '../../src/graph/index.js';
import type { ForeignMachine } from './foreign-machine.js';
import { XStateRun } from './run-on-xstate.js';

/** The active leaf states of a state value, named as `check` names them (`on.A.C.D`). */
export function leafNames(value: StateValue, prefix = ''): string[] {
  if (typeof value === 'string') return [`${prefix}${value}`];
  const keys = Object.keys(value);
  if (keys.length === 0) return prefix === '' ? [] : [prefix.slice(0, -1)];
  return keys.flatMap((key) => leafNames(value[key] as StateValue, `${prefix}${key}.`));
}

/**
 * Every path's configurations on plain XState, in order: the active leaves of every snapshot XState
 * showed (settled, or passed through while a promise or child answered).
 */
export async function configurations(entry: ForeignMachine): Promise<string[][][]> {
  const all: string[][][] = [];
  for (const path of entry.paths) {
    const run = await XStateRun.start(entry, path);
    try {
      for (const step of path.steps) await run.step(step);
      all.push(run.values().map((value) => leafNames(value)));
    } finally {
      run.stop();
    }
  }
  return all;
}

/** The violations that a corpus path shows false, each with what XState did. */
export async function falseVerdicts(
  entry: ForeignMachine,
  violations: readonly CheckViolation[],
): Promise<Array<CheckViolation & { readonly xstate: string }>> {
  const paths = await configurations(entry);
  const restsIn = (state: string) => paths.some((steps) => steps.some((leaves) => leaves.includes(state)));
  const leaves = (state: string) =>
    paths.some((steps) =>
      steps.some((now, i) => now.includes(state) && steps.slice(i + 1).some((l) => !l.includes(state))),
    );
  const takesEvents = entry.paths.some((path) => path.steps.some((step) => 'send' in step && !step.refused));
  return violations.flatMap((violation) => {
    if (violation.rule === 'unreachable' && restsIn(violation.state))
      return [{ ...violation, xstate: `XState rests in '${violation.state}' on a corpus path` }];
    if (violation.rule === 'no-way-out' && violation.state !== '' && leaves(violation.state))
      return [{ ...violation, xstate: `XState leaves '${violation.state}' on a corpus path` }];
    if (violation.rule === 'no-way-out' && violation.state === '' && takesEvents)
      return [{ ...violation, xstate: 'a machine with no states takes events on a corpus path: it is not stuck' }];
    return [];
  });
}
