/**
 * A run object's step is pure given the stored run and the event (a Restate retry takes the very
 * same step): children spawned without an id are named by the step that spawned them, not by
 * XState's counter of the whole process (spawned-child-ids.ts).
 */
import { describe, expect, it } from 'vitest';
import { assign, createMachine, setup, type AnyActorRef } from 'xstate';
import { RunSteps, type StepOutcome, type TakenStep } from '../../src/restate/run-steps.js';

const worker = createMachine({ id: 'worker', initial: 'working', states: { working: {} } });
const hiring = setup({ types: { context: {} as { workers: AnyActorRef[] } }, actors: { worker } }).createMachine({
  id: 'hiring',
  context: ({ spawn }) => ({ workers: [spawn('worker')] }),
  on: { HIRE: { actions: assign({ workers: ({ context, spawn }) => [...context.workers, spawn('worker')] }) } },
});

const taken = (outcome: StepOutcome): TakenStep => {
  if (!('run' in outcome)) throw new Error(`the step was not taken: ${JSON.stringify(outcome)}`);
  return outcome;
};
const workerIds = (step: TakenStep) =>
  (step.run.snapshot as { context: { workers: Array<{ id: string }> } }).context.workers.map((ref) => ref.id);

describe('a run object step', () => {
  it('names the children it spawns without an id by its seq, the same on every retry', () => {
    const steps = new RunSteps({ hiring: { machine: hiring, version: 1, summary: 'hires' } });
    const started = taken(steps.start('h-1', 'hiring', undefined, 1));
    expect(workerIds(started)).toEqual(['x:0.0']);
    const hire = { type: 'HIRE', at: 2 };
    const first = taken(steps.step(started.run, hire, {}));
    const retried = taken(steps.step(started.run, hire, {}));
    expect(workerIds(first)).toEqual(['x:0.0', 'x:1.0']);
    expect(retried.run.snapshot).toEqual(first.run.snapshot);
    expect(workerIds(taken(steps.step(first.run, { type: 'HIRE', at: 3 }, {})))).toEqual(['x:0.0', 'x:1.0', 'x:2.0']);
  });
});
