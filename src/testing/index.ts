/**
 * `statewright/testing`: every path of a lifecycle, generated from its statechart and driven
 * through statewright's runtime on a real store beside plain XState, with a crash at every commit.
 * See docs/testing-your-machines.md.
 */
export {
  everyPath,
  type EveryPathOptions,
  type PathSet,
  type TestPath,
  type UncoveredTransition,
} from './every-path.js';
export type { UnbuildableEvent } from './event-samples.js';
export {
  testLifecycle,
  type LifecycleReport,
  type LifecycleSummary,
  type LifecycleTest,
  type TestLifecycleOptions,
} from './test-lifecycle.js';
export type { PathFailure, PathResult } from './drive-path.js';
export { PathFailedError } from './path-failed-error.js';
export { failureText, shortestFailures } from './failure-text.js';
export { seenOf, type Seen } from './seen.js';
export { dyingStore, type Death } from './dying-store.js';
export type { TestStoreOption } from './test-store.js';
