/**
 * What a person reads of a corpus run now, for the assertion that it names no XState-internal
 * event: explain's text, the words of what the run does by itself, the history as `statewright
 * history` prints it, and the refusal of an event its state does not take. What a sender is offered
 * (explain's accepts) must be events a sender can send.
 */
import { createActor, type AnyMachineSnapshot } from 'xstate';
import { expect } from 'vitest';
import { historyLine } from '../../src/cli/history-line.js';
import { explainRun, explanationText } from '../../src/explain/index.js';
import { isOutsideEvent } from '../../src/graph/index.js';
import type { ForeignMachine } from './foreign-machine.js';
import type { RuntimeRun } from './run-on-runtime.js';

const PROBE = { type: 'NOT_AN_EVENT_OF_THIS_MACHINE' };

export async function personReads(run: RuntimeRun, entry: ForeignMachine): Promise<string[]> {
  const { runtime, runId } = run;
  const explanation = await explainRun(runtime, runId);
  for (const accepted of explanation.accepts) expect(isOutsideEvent(accepted.type), accepted.type).toBe(true);
  const read = [
    explanationText(explanation),
    ...(await runtime.history(runId)).map((e) => historyLine(e, entry.machine)),
  ];
  const stored = await runtime.getSnapshot(runId);
  const snapshot = createActor(entry.machine, {
    snapshot: stored.snapshot as never,
  }).getSnapshot() as AnyMachineSnapshot;
  // A state with a wildcard takes any event: the probe would move it.
  if (!snapshot.can(PROBE))
    read.push(
      await runtime.dispatch(runId, PROBE).then(
        () => {
          throw new Error(`${PROBE.type} was taken`);
        },
        (error: Error) => error.message,
      ),
    );
  return read;
}
