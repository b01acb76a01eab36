import { describe, expect, it } from 'vitest';
import { createActor, pathToStateValue, type Actor } from 'xstate';
import {
  DEFAULT_TASK_LIMITS,
  InvalidTransitionError,
  RoleError,
  TASK_ROLES,
  TASK_STATES,
  pausedState,
  taskMachine,
  taskState,
  taskView,
  type TaskEvent,
  type TaskLimits,
  type TaskRole,
  type TaskSnapshot,
} from '../../machines/index.js';
import {
  explainRejection,
  leafStates,
  MetadataValidationError,
  stateName,
  transitionTable,
} from '../../src/graph/index.js';
import { atomicStatePath } from '../../src/graph/xstate-internals.js';
import { agents } from '../model/lifecycles/task.js';

const { supervisor: S, executor: X, human: HUMAN, checker: CHECKER } = agents;

const ev = {
  create: (task = 'Add a --verbose flag'): TaskEvent => ({ type: 'create_task', agent: S, task }),
  check: (): TaskEvent => ({ type: 'check', agent: X }),
  pass: (): TaskEvent => ({ type: 'check_passed', agent: CHECKER }),
  fail: (feedback = 'FAIL test/a.test.ts'): TaskEvent => ({
    type: 'check_failed',
    agent: CHECKER,
    failed: ['npm test'],
    feedback,
  }),
  consult: (question = 'Which parser?'): TaskEvent => ({ type: 'consult', agent: X, question }),
  respond: (response = 'parseArgs'): TaskEvent => ({ type: 'respond_consult', agent: S, response }),
  wait: (): TaskEvent => ({ type: 'wait_for_consult', agent: X }),
  ask: (agent: string = X, question = 'May I change the CLI?'): TaskEvent => ({ type: 'ask_human', agent, question }),
  answer: (answer = 'yes'): TaskEvent => ({ type: 'answer', agent: HUMAN, answer }),
  submit: (summary = 'Added the flag'): TaskEvent => ({ type: 'submit', agent: X, summary }),
  approve: (): TaskEvent => ({ type: 'approve', agent: S }),
  reject: (notes = 'Needs a test'): TaskEvent => ({ type: 'reject', agent: S, notes }),
  reset: (): TaskEvent => ({ type: 'reset', agent: S }),
};

/** A task actor driven as the runtime will drive it: a refused event throws its explanation. */
function task(limits?: Partial<TaskLimits>) {
  const actor: Actor<typeof taskMachine> = createActor(taskMachine, { input: limits && { limits } }).start();
  const send = (...events: TaskEvent[]) => {
    for (const event of events) {
      const before = actor.getSnapshot();
      if (!before.can(event)) throw explainRejection(before, event);
      actor.send(event);
    }
    return actor.getSnapshot();
  };
  const refusal = (event: TaskEvent) => {
    const before = actor.getSnapshot();
    expect(before.can(event), `${event.type} should be refused`).toBe(false);
    actor.send(event);
    expect(actor.getSnapshot()).toBe(before); // XState leaves a refused event's snapshot untouched
    return explainRejection(before, event);
  };
  const leaf = () => atomicStatePath(actor.getSnapshot()).join('.');
  return { actor, send, refusal, leaf, view: () => taskView(actor.getSnapshot()) };
}

describe('the task machine', () => {
  it('has the seed states as its leaves, Checking and Consultation each in two steps', () => {
    const byLeaf = leafStates(taskMachine).map((node) => {
      const snapshot = taskMachine.resolveState({
        value: pathToStateValue(node.path),
        context: createActor(taskMachine).getSnapshot().context,
      });
      return [stateName(node), taskState(snapshot as TaskSnapshot)];
    });
    expect(Object.fromEntries(byLeaf)).toEqual({
      Idle: 'Idle',
      'Active.Working.Executing': 'Executing',
      'Active.Working.Checking.Running': 'Checking',
      'Active.Working.Checking.Passed': 'Checking',
      'Active.Working.Addressing': 'Addressing',
      'Active.Consultation.Asked': 'Consultation',
      'Active.Consultation.Answered': 'Consultation',
      'Active.Reviewing': 'Reviewing',
      AwaitingHuman: 'AwaitingHuman',
      Complete: 'Complete',
      Failed: 'Failed',
    });
    expect(new Set(byLeaf.map(([, state]) => state))).toEqual(new Set(TASK_STATES));
  });

  it('runs a task from create_task to Complete and starts the next one cleanly', () => {
    const t = task();
    expect(t.view()).toEqual({
      state: 'Idle',
      check_retries: 0,
      review_cycles: 0,
      max_check_retries: 20,
      max_review_cycles: 3,
    });
    t.send(ev.create(), ev.check());
    expect(t.view()).toMatchObject({ state: 'Checking', step: 'running', task: 'Add a --verbose flag' });
    t.send(ev.pass());
    expect(t.view()).toMatchObject({ state: 'Checking', step: 'passed' });
    t.send(ev.submit(), ev.approve());
    expect(t.view()).toMatchObject({ state: 'Complete', submission: 'Added the flag' });
    t.send(ev.create('Second task'));
    expect(t.view()).toEqual({
      state: 'Executing',
      task: 'Second task',
      check_retries: 0,
      review_cycles: 0,
      max_check_retries: 20,
      max_review_cycles: 3,
    });
  });

  it('invokes the check runner only while the checks run, with the attempt number', () => {
    const t = task();
    t.send(ev.create(), ev.check());
    const children = Object.values(t.actor.getSnapshot().children);
    expect(children).toHaveLength(1);
    t.send(ev.fail(), ev.check(), ev.fail(), ev.check());
    expect(t.actor.getSnapshot().context.checkRetries).toBe(2);
    t.send(ev.pass());
    expect(Object.values(t.actor.getSnapshot().children)).toHaveLength(0);
  });

  describe('the check budget', () => {
    it('sends a failed check to Addressing with the feedback, and the one reaching max_check_retries to Failed', () => {
      const t = task();
      t.send(ev.create(), ev.check(), ev.fail('first'));
      expect(t.view()).toMatchObject({
        state: 'Addressing',
        check_retries: 1,
        check_feedback: 'first',
        failure_reason: 'Commands failed: npm test',
      });
      for (let i = 2; i < DEFAULT_TASK_LIMITS.maxCheckRetries; i++) t.send(ev.check(), ev.fail(`try ${i}`));
      expect(t.view()).toMatchObject({ state: 'Addressing', check_retries: 19, check_feedback: 'try 19' });
      t.send(ev.check(), ev.fail('last'));
      expect(t.view()).toMatchObject({
        state: 'Failed',
        check_retries: 20,
        check_feedback: 'last',
        failure_reason: 'Check failed 20 times in a row. Last failure:\nCommands failed: npm test',
      });
    });

    it('counts consecutive failures only: a pass resets the count and clears the feedback', () => {
      const t = task({ maxCheckRetries: 2 });
      t.send(ev.create(), ev.check(), ev.fail(), ev.check(), ev.pass());
      expect(t.view()).toMatchObject({ state: 'Checking', step: 'passed', check_retries: 0 });
      expect(t.view()).not.toHaveProperty('check_feedback');
      expect(t.view()).not.toHaveProperty('failure_reason');
      t.send(ev.check(), ev.fail());
      expect(t.view()).toMatchObject({ state: 'Addressing', check_retries: 1 });
      t.send(ev.check(), ev.fail());
      expect(t.view()).toMatchObject({ state: 'Failed', check_retries: 2 });
    });

    it('only lets checked work be submitted', () => {
      const t = task();
      t.send(ev.create());
      expect(t.refusal(ev.submit())).toBeInstanceOf(InvalidTransitionError);
      t.send(ev.check());
      expect(t.refusal(ev.submit()).message).toContain(
        "cannot apply event 'submit' in state 'Active.Working.Checking.Running'",
      );
      t.send(ev.fail());
      expect(t.refusal(ev.submit())).toBeInstanceOf(InvalidTransitionError);
    });
  });

  describe('the review budget', () => {
    it('sends a rejection to Addressing with the notes, resetting check retries, and the one reaching max_review_cycles to Failed', () => {
      const t = task();
      t.send(ev.create(), ev.check(), ev.fail(), ev.check(), ev.pass(), ev.submit(), ev.reject('first'));
      expect(t.view()).toMatchObject({ state: 'Addressing', review_cycles: 1, check_retries: 0, review: 'first' });
      t.send(ev.check(), ev.fail(), ev.check(), ev.pass(), ev.submit());
      expect(t.view()).not.toHaveProperty('review'); // the resubmission answers it
      t.send(ev.reject('second'));
      expect(t.view()).toMatchObject({ state: 'Addressing', review_cycles: 2, check_retries: 0 });
      t.send(ev.check(), ev.pass(), ev.submit(), ev.reject('third'));
      expect(t.view()).toMatchObject({
        state: 'Failed',
        review_cycles: 3,
        review: 'third',
        failure_reason: 'Task rejected 3 times without resolution.',
      });
    });

    it('is cleared by reset to Idle, and only from Failed', () => {
      const t = task({ maxReviewCycles: 1 });
      t.send(ev.create());
      expect(t.refusal(ev.reset())).toBeInstanceOf(InvalidTransitionError);
      t.send(ev.check(), ev.pass(), ev.submit(), ev.reject());
      expect(t.view().state).toBe('Failed');
      expect(t.refusal(ev.create())).toBeInstanceOf(InvalidTransitionError);
      t.send({ type: 'reset', agent: HUMAN });
      expect(t.view()).toEqual({
        state: 'Idle',
        check_retries: 0,
        review_cycles: 0,
        max_check_retries: 20,
        max_review_cycles: 1,
      });
    });

    it('refuses budgets that are not positive whole numbers', () => {
      const started = (limits: Partial<TaskLimits>) => {
        const actor = createActor(taskMachine, { input: { limits } });
        actor.subscribe({ error: () => {} });
        return actor.start().getSnapshot();
      };
      expect(started({ maxCheckRetries: 0 })).toMatchObject({
        status: 'error',
        error: {
          message: expect.stringMatching(/^Task input is not valid: limits\.maxCheckRetries: .*Start the task again/),
        },
      });
      expect(started({ maxReviewCycles: 1.5 })).toMatchObject({
        status: 'error',
        error: { message: expect.stringContaining('limits.maxReviewCycles') },
      });
    });
  });

  describe('consultation', () => {
    const working: Array<[string, TaskEvent[]]> = [
      ['Active.Working.Executing', []],
      ['Active.Working.Checking.Running', [ev.check()]],
      ['Active.Working.Checking.Passed', [ev.check(), ev.pass()]],
      ['Active.Working.Addressing', [ev.check(), ev.fail()]],
    ];

    it.each(working)('returns from a consult to exactly %s', (leaf, before) => {
      const t = task();
      t.send(ev.create(), ...before);
      const context = t.actor.getSnapshot().context;
      t.send(ev.consult('Which parser?'));
      expect(t.view()).toMatchObject({
        state: 'Consultation',
        step: 'asked',
        consult_question: 'Which parser?',
        paused_state: taskState(leafSnapshot(leaf)),
      });
      expect(t.refusal(ev.wait()).message).toContain("'wait_for_consult' in state 'Active.Consultation.Asked'");
      t.send(ev.respond('parseArgs'));
      expect(t.view()).toMatchObject({ state: 'Consultation', step: 'answered', consult_response: 'parseArgs' });
      t.send(ev.wait());
      expect(t.leaf()).toBe(leaf);
      expect(t.actor.getSnapshot().context).toEqual(context); // the question and response are spent
    });

    it('names the paused state in the view', () => {
      const t = task();
      t.send(ev.create(), ev.check(), ev.fail(), ev.consult());
      expect(t.view().paused_state).toBe('Addressing');
      expect(pausedState(t.actor.getSnapshot())).toBe('Addressing');
    });

    it('cannot be entered from review or left by the supervisor', () => {
      const t = task();
      t.send(ev.create(), ev.check(), ev.pass(), ev.submit());
      expect(t.refusal(ev.consult())).toBeInstanceOf(InvalidTransitionError);
    });
  });

  describe('questions for a human', () => {
    const active: Array<[string, TaskEvent[], string]> = [
      ['Active.Working.Executing', [], X],
      ['Active.Working.Checking.Running', [ev.check()], X],
      ['Active.Working.Checking.Passed', [ev.check(), ev.pass()], X],
      ['Active.Working.Addressing', [ev.check(), ev.fail()], X],
      ['Active.Consultation.Asked', [ev.consult()], S],
      ['Active.Consultation.Answered', [ev.consult(), ev.respond()], X],
      ['Active.Reviewing', [ev.check(), ev.pass(), ev.submit()], S],
    ];

    it.each(active)('come back to exactly %s with the answer', (leaf, before, asker) => {
      const t = task();
      t.send(ev.create(), ...before, ev.ask(asker, 'May I?'));
      expect(t.view()).toMatchObject({ state: 'AwaitingHuman', human_question: 'May I?' });
      expect(t.view().paused_state).toBe(taskState(leafSnapshot(leaf)));
      t.send(ev.answer('yes'));
      expect(t.leaf()).toBe(leaf);
      expect(t.view()).toMatchObject({ human_question: 'May I?', human_answer: 'yes' });
    });

    it('nest inside a consultation: both pauses unwind to where the executor was', () => {
      const t = task();
      t.send(ev.create(), ev.check(), ev.fail(), ev.consult(), ev.respond(), ev.ask());
      expect(t.view().paused_state).toBe('Consultation');
      t.send(ev.answer());
      expect(t.leaf()).toBe('Active.Consultation.Answered');
      t.send(ev.wait());
      expect(t.leaf()).toBe('Active.Working.Addressing');
    });

    it('survive persistence: a restored run returns where the original would', () => {
      const t = task();
      t.send(ev.create(), ev.check(), ev.pass(), ev.consult(), ev.ask(S));
      const stored = JSON.parse(JSON.stringify(t.actor.getPersistedSnapshot()));
      t.actor.stop();
      const restored = createActor(taskMachine, { snapshot: stored }).start();
      expect(taskView(restored.getSnapshot())).toMatchObject({ state: 'AwaitingHuman', paused_state: 'Consultation' });
      restored.send(ev.answer());
      restored.send(ev.respond());
      const again = createActor(taskMachine, {
        snapshot: JSON.parse(JSON.stringify(restored.getPersistedSnapshot())),
      }).start();
      again.send(ev.wait());
      expect(atomicStatePath(again.getSnapshot()).join('.')).toBe('Active.Working.Checking.Passed');
    });

    it('are not taken from Idle, Complete or Failed, nor answered by an agent', () => {
      const t = task({ maxReviewCycles: 1 });
      expect(t.refusal(ev.ask())).toBeInstanceOf(InvalidTransitionError);
      t.send(ev.create(), ev.ask());
      expect(t.refusal({ type: 'answer', agent: S, answer: 'yes' })).toBeInstanceOf(RoleError);
    });
  });

  describe('roles', () => {
    /** The seed: "supervisors can't submit, executors can't approve"; ferrus's role gating for the rest. */
    const allowed: Record<string, TaskRole[]> = {
      create_task: ['supervisor'],
      check: ['executor'],
      check_passed: ['checker'],
      check_failed: ['checker'],
      consult: ['executor'],
      respond_consult: ['supervisor'],
      wait_for_consult: ['executor'],
      ask_human: ['supervisor', 'executor'],
      answer: ['human'],
      submit: ['executor'],
      approve: ['supervisor'],
      reject: ['supervisor'],
      reset: ['supervisor', 'human'],
      // Who claims depends on the seat: the executor's while it works, the supervisor's in review.
      claim: ['executor'],
    };
    const allowedIn = (type: string, source: string) =>
      type === 'claim' && source === 'Active.Reviewing' ? ['supervisor'] : allowed[type]!;
    const valid: Record<string, TaskEvent> = {
      create_task: ev.create(),
      check: ev.check(),
      check_passed: ev.pass(),
      check_failed: ev.fail(),
      consult: ev.consult(),
      respond_consult: ev.respond(),
      wait_for_consult: ev.wait(),
      ask_human: ev.ask(),
      answer: ev.answer(),
      submit: ev.submit(),
      approve: ev.approve(),
      reject: ev.reject(),
      reset: ev.reset(),
      claim: { type: 'claim', agent: X, at: 1 },
    };

    it('admit exactly the right roles for every event in every state that takes it, and name role and action otherwise', () => {
      const context = createActor(taskMachine).getSnapshot().context;
      // Heartbeats need a lease to renew and the lease timer is no agent's: both are tested with leases.
      const pairs = new Set(
        transitionTable(taskMachine)
          .filter((row) => row.event !== 'heartbeat' && row.event !== 'lease_expired')
          .map((row) => `${row.source} ${row.event}`),
      );
      let checked = 0;
      for (const pair of pairs) {
        const [source, type] = pair.split(' ') as [string, string];
        const snapshot = taskMachine.resolveState({ value: pathToStateValue(source.split('.')), context });
        for (const role of TASK_ROLES) {
          const event = { ...valid[type]!, agent: `${role}:any:7` } as TaskEvent;
          const admitted = allowedIn(type, source).includes(role);
          expect(snapshot.can(event), `${role} ${type} in ${source}`).toBe(admitted);
          if (!admitted) {
            const error = explainRejection(snapshot, event);
            expect(error).toBeInstanceOf(RoleError);
            expect(error).toBeInstanceOf(InvalidTransitionError);
            expect(error).toMatchObject({ role, event: type, state: source, allowed: allowedIn(type, source) });
            expect(error.message).toContain(`Role '${role}' may not ${type}`);
          }
          checked++;
        }
      }
      expect(checked).toBe(pairs.size * TASK_ROLES.length);
    });

    it('stop a supervisor from submitting and an executor from approving', () => {
      const t = task();
      t.send(ev.create(), ev.check(), ev.pass());
      expect(t.refusal({ type: 'submit', agent: S, summary: 'mine' }).message).toBe(
        "Role 'supervisor' may not submit (in state 'Active.Working.Checking.Passed'): only 'executor' may submit.",
      );
      t.send(ev.submit());
      expect(t.refusal({ type: 'approve', agent: X }).message).toBe(
        "Role 'executor' may not approve (in state 'Active.Reviewing'): only 'supervisor' may approve.",
      );
    });

    it('refuse an event whose agent is missing or not role:vendor:index, saying so', () => {
      const t = task();
      expect(t.refusal({ type: 'create_task', task: 'x' } as TaskEvent).message).toBe(
        "Role missing: 'create_task' has no agent (role:vendor:index) naming who sends it (in state 'Idle'). Only 'supervisor' may create_task.",
      );
      expect(t.refusal({ type: 'create_task', agent: 'supervisor', task: 'x' }).message).toBe(
        "Role missing: 'create_task' has agent \"supervisor\", which is not role:vendor:index (in state 'Idle'). Only 'supervisor' may create_task.",
      );
      expect(t.refusal({ type: 'create_task', agent: 'boss:claude:1', task: 'x' })).toMatchObject({ role: undefined });
    });

    it('are checked before the payload, which is checked field by field', () => {
      const t = task();
      expect(t.refusal({ type: 'create_task', agent: X } as TaskEvent)).toBeInstanceOf(RoleError);
      const missing = t.refusal({ type: 'create_task', agent: S } as TaskEvent);
      expect(missing).toBeInstanceOf(MetadataValidationError);
      expect(missing).toMatchObject({ missing: ['task'] });
      expect(t.refusal({ type: 'create_task', agent: S, task: '  ' })).toMatchObject({
        invalid: [{ field: 'task', problem: 'must not be empty' }],
      });
      t.send(ev.create(), ev.check(), ev.pass(), ev.submit());
      expect(t.refusal({ type: 'reject', agent: S } as TaskEvent)).toMatchObject({ missing: ['notes'] });
    });
  });
});

function leafSnapshot(leaf: string): TaskSnapshot {
  return taskMachine.resolveState({
    value: pathToStateValue(leaf.split('.')),
    context: createActor(taskMachine).getSnapshot().context,
  }) as TaskSnapshot;
}
