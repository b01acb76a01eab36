/**
 * The every-path harness: paths generated from a machine's graph (src/testing, the same that
 * `statewright/testing` gives users), replayed step by step against a system under test, checking
 * the state after every step.
 */
import type { EventObject, StateValue } from 'xstate';
import { describePath, type ModelPath } from '../../src/testing/paths.js';

export {
  describePath,
  edgeKey,
  leafName,
  machineEdges,
  simplePaths,
  takenEdges,
  transitionCoveringPaths,
  type EventSamples,
  type ModelPath,
  type PathOptions,
} from '../../src/testing/paths.js';

/** A system under test: something that starts a run and applies events to it. */
export interface Driver {
  start(): Promise<StateValue>;
  send(event: EventObject): Promise<StateValue>;
  stop(): Promise<void>;
}

export interface StepFailure {
  path: string;
  step: number;
  event: string;
  expected: StateValue;
  actual: StateValue | string;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Replays one path against a fresh driver; returns the first step whose state differs, if any. */
export async function replay(path: ModelPath, driver: Driver): Promise<StepFailure | undefined> {
  try {
    let index = 0;
    for (const step of path.steps) {
      const actual = step.event.type === 'xstate.init' ? await driver.start() : await driver.send(step.event);
      if (!same(actual, step.state.value)) {
        return { path: describePath(path), step: index, event: step.event.type, expected: step.state.value, actual };
      }
      index++;
    }
    return undefined;
  } finally {
    await driver.stop();
  }
}

/** Replays every path, each against its own driver, and collects the failures. */
export async function replayAll(paths: ModelPath[], makeDriver: () => Driver): Promise<StepFailure[]> {
  const failures: StepFailure[] = [];
  for (const path of paths) {
    const failure = await replay(path, makeDriver()).catch((error: unknown) => ({
      path: describePath(path),
      step: -1,
      event: '(error)',
      expected: path.state.value,
      actual: String(error),
    }));
    if (failure) failures.push(failure);
  }
  return failures;
}
