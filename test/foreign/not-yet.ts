/**
 * Where statewright does not yet do with a corpus machine what plain XState shows it should (issue
 * 39): each is left out of its assertion until its fix lands on main, then its line here is removed,
 * so the assertion holds it from then on.
 */
import type { ForeignMachine, ForeignPath } from './foreign-machine.js';

/**
 * What was asked: the path on the runtime alone, restored from the store after every step, or
 * through serve killed mid-path; `check`'s verdicts on the machine; `verify` of the path's run; the
 * text of `explain` and of `send`'s refusals along the path.
 */
export type Taken = 'runtime' | 'restored' | 'serve' | 'check' | 'verify' | 'explain';

const differences: Readonly<Record<string, string>> = {};

/**
 * Why it is left out when taken so, or undefined: it must hold. Listed for the path, or for the
 * machine (every path, and what concerns the machine alone: `path` undefined).
 */
export function notYet(entry: ForeignMachine, path: ForeignPath | undefined, taken: Taken): string | undefined {
  return differences[`${entry.name}/${path?.name ?? ''}/${taken}`] ?? differences[`${entry.name}//${taken}`];
}
