/**
 * The task lifecycle of ferrus: a supervisor hands a task to an executor, the executor works and
 * runs the checks, may consult the supervisor or ask a human, submits, and the supervisor approves
 * or rejects, within a check-retry budget and a review-cycle budget
 * (seed: ferrus-state-machine.txt; seed-systems.md section 4).
 *
 * The seed's nine states are the machine's (Checking and Consultation in two steps each), grouped
 * so that two history states can bring a paused task back to exactly where it was:
 *
 *   Idle
 *   Active                          ask_human from anywhere in here; answer restores (deep history)
 *     Working                       consult from anywhere in here; wait_for_consult restores (deep history)
 *       Executing
 *       Checking.Running            the check commands run (the `checkRunner` actor)
 *       Checking.Passed             the seed's "Checking (pass)": the only state that may submit
 *       Addressing
 *     Consultation.Asked            waiting for the supervisor's response
 *     Consultation.Answered         the response is in; the executor's wait_for_consult resumes
 *     Reviewing
 *   AwaitingHuman
 *   Complete                        the next create_task starts cleanly
 *   Failed                          a budget ran out; reset clears it
 *
 * Every event names the agent that sends it (`agent: "role:vendor:index"`), and every transition
 * admits only its role: a refusal is explained as a `RoleError` naming the role and the action.
 *
 * Leases (ferrus's claimed_by / lease_until): the executor claims the task while it works
 * (Working, Consultation), the supervisor while it reviews; heartbeats renew the claim. Unlike
 * ferrus, every state-changing event checks it (`mayChange`): an agent whose lease expired or was
 * taken over is refused with a `LeaseError` naming the holder or the expiry. The expiry is a
 * durable timer (the runtime's `deadline` actor, spawned as `lease-timer` with the absolute
 * lease_until), so a restored run still sees its lease run out at the recorded instant.
 */
import { and, assign, fromCallback, setup, spawnChild, stopChild, type EventObject, type SnapshotFrom } from 'xstate';
import { z } from 'zod';
import { explainedGuard } from '../src/graph/explained-guard.js';
import { InvalidTransitionError } from '../src/graph/invalid-transition-error.js';
import { metadataGuard, parseInput } from '../src/graph/metadata-guard.js';
import { roleGuard } from '../src/graph/role-guard.js';
import { claimLease, LeaseError, mayChange, renewLease, type Lease } from './task-lease.js';
import { roleOf, type AgentId, type TaskRole } from './task-agent.js';

export { RoleError } from '../src/graph/role-guard.js';
export * from './task-lease.js';
export * from './task-agent.js';

/** The states of the seed, in its catalog order plus Checking; the `state` of STATE.json. */
export const TASK_STATES = ['Idle', 'Executing', 'Checking', 'Addressing', 'Consultation', 'AwaitingHuman', 'Reviewing', 'Complete', 'Failed'] as const;
export type TaskStateName = (typeof TASK_STATES)[number];

export interface TaskLimits {
  /** Consecutive check failures that fail the task (the one reaching the limit does). */
  readonly maxCheckRetries: number;
  /** Rejections that fail the task (the one reaching the limit does). */
  readonly maxReviewCycles: number;
}

/** ferrus's defaults (`[limits]` in ferrus.toml). */
export const DEFAULT_TASK_LIMITS: TaskLimits = { maxCheckRetries: 20, maxReviewCycles: 3 };

const limit = z.int().min(1);
export const taskInputSchema = z
  .object({
    limits: z.object({ maxCheckRetries: limit, maxReviewCycles: limit }).partial().optional(),
    /** How long a claim or heartbeat holds the task (ferrus's `[lease] ttl_secs`, in ms). */
    lease: z.object({ ttlMs: z.int().min(1) }).partial().optional(),
  })
  .optional();

/** ferrus's `[lease] ttl_secs` default, 90 s. */
export const DEFAULT_LEASE_TTL_MS = 90_000;
export type TaskInput = z.input<typeof taskInputSchema>;

/** Fields are present even when empty (undefined), so that a new task can clear every one of them. */
export interface TaskContext {
  readonly limits: TaskLimits;
  readonly leaseTtlMs: number;
  /** Who has claimed the task, until when; cleared on create_task, submit, approve, reject, and at the end. */
  readonly lease: Lease | undefined;
  /** Set when the lease timer fired: the lease is dead whatever time a later event carries. */
  readonly leaseExpired: boolean;
  /** The executor whose check is running or last ran: its results count only while it holds the task. */
  readonly checkRequestedBy: AgentId | undefined;
  readonly task: string | undefined;
  /** Consecutive failed checks; a pass and a rejection reset it. */
  readonly checkRetries: number;
  /** Rejections of this task so far. */
  readonly reviewCycles: number;
  /** The tail of the last failed check's output, for the executor; a pass clears it. */
  readonly checkFeedback: string | undefined;
  /** The supervisor's notes from the last rejection, for the executor; the next submit clears them. */
  readonly review: string | undefined;
  readonly submission: string | undefined;
  /** The executor's question to the supervisor and the supervisor's response. */
  readonly consultQuestion: string | undefined;
  readonly consultResponse: string | undefined;
  /** A question for a person and their answer (kept for the agent after it resumes). */
  readonly humanQuestion: string | undefined;
  readonly humanAnswer: string | undefined;
  readonly failureReason: string | undefined;
}

const text = z.string().trim().min(1, 'must not be empty');
/** Payloads, besides `agent`, that each event must carry. */
export const taskPayloads = {
  create_task: z.object({ task: text }),
  check_failed: z.object({
    failed: z.array(z.string()).min(1),
    feedback: z.string(),
    /** The check never finished (its process died): the executor checks again, no retry is spent. */
    interrupted: z.boolean().optional(),
  }),
  consult: z.object({ question: text }),
  respond_consult: z.object({ response: text }),
  ask_human: z.object({ question: text }),
  answer: z.object({ answer: text }),
  submit: z.object({ summary: text }),
  reject: z.object({ notes: text }),
};

/** The lease timer's event: which lease ran out (a timer of an older lease is refused). */
export interface LeaseExpiredEvent {
  type: 'lease_expired';
  holder: AgentId;
  leaseUntil: number;
  at?: number;
}

export interface TaskEventMeta {
  agent?: string;
  /** Stamped by the runtime. The machine does not read it: nothing it decides depends on time. */
  at?: number;
}
type Payload<K extends keyof typeof taskPayloads> = z.infer<(typeof taskPayloads)[K]>;

export type TaskEvent = TaskEventMeta &
  (
    | ({ type: 'create_task' } & Payload<'create_task'>)
    | { type: 'check' }
    | { type: 'check_passed'; warning?: string }
    | ({ type: 'check_failed' } & Payload<'check_failed'>)
    | ({ type: 'consult' } & Payload<'consult'>)
    | ({ type: 'respond_consult' } & Payload<'respond_consult'>)
    | { type: 'wait_for_consult' }
    | ({ type: 'ask_human' } & Payload<'ask_human'>)
    | ({ type: 'answer' } & Payload<'answer'>)
    | ({ type: 'submit' } & Payload<'submit'>)
    | { type: 'approve' }
    | ({ type: 'reject' } & Payload<'reject'>)
    | { type: 'reset' }
    | { type: 'claim' }
    | { type: 'heartbeat' }
  )
  | LeaseExpiredEvent;

/** What the check runner is started with: the attempt number this check would be if it fails. */
export interface CheckRunInput {
  readonly attempt: number;
}

const byRole = (...roles: TaskRole[]) => roleGuard(roles, { roleOf: (event) => roleOf(event?.agent), field: 'agent', format: 'role:vendor:index' });

/**
 * A context for a new task: counters at zero, nothing left over from the last one. Every field is
 * named, since `assign` merges into the old context rather than replacing it.
 */
const freshTask = ({ limits, leaseTtlMs }: Pick<TaskContext, 'limits' | 'leaseTtlMs'>, task?: string): TaskContext => ({
  limits,
  leaseTtlMs,
  lease: undefined,
  leaseExpired: false,
  checkRequestedBy: undefined,
  task,
  checkRetries: 0,
  reviewCycles: 0,
  checkFeedback: undefined,
  review: undefined,
  submission: undefined,
  consultQuestion: undefined,
  consultResponse: undefined,
  humanQuestion: undefined,
  humanAnswer: undefined,
  failureReason: undefined,
});

const times = (n: number) => `${n} ${n === 1 ? 'time' : 'times'}`;

const LEASE_TIMER = 'lease-timer';

/** The lease as of the event: one whose timer fired counts as dead at once. */
function leaseAt(context: TaskContext, at: number): Lease | undefined {
  const { lease } = context;
  return lease && context.leaseExpired ? { ...lease, leaseUntil: Math.min(lease.leaseUntil, at) } : lease;
}

const eventTime = (event: { at?: unknown }) => (typeof event.at === 'number' ? event.at : undefined);
const noTime = (state: string, type: string) =>
  new InvalidTransitionError(state, type, `'${type}' carries no time ('at'), so its lease cannot be checked: send it through the runtime, which stamps every event.`);

/** `mayChange` as a guard: an agent of the holder's role must hold a live lease, or the lease must be dead. */
const leaseGuard = explainedGuard('lease', ({ context, event, state }) => {
  const agent = (event as { agent?: unknown }).agent;
  if (!context.lease || roleOf(agent) === undefined) return undefined; // no lease, or the role guard speaks
  const at = eventTime(event);
  if (at === undefined) return roleOf(context.lease.claimedBy) === roleOf(agent) ? noTime(state, event.type) : undefined;
  const verdict = mayChange(leaseAt(context, at), agent as AgentId, at);
  return verdict.ok ? undefined : new LeaseError(state, event.type, agent as string, verdict);
});

/**
 * A check's result speaks for the executor that asked for it: once that executor has lost the
 * task (its lease taken over, or run out), a result of its check (say, from its process that
 * was paused and woke up late) changes nothing. An interrupted check, declared by the recovery
 * of a dead process, is not a result and is not bound.
 */
const requesterLeaseGuard = explainedGuard('requesterLease', ({ context, event, state }) => {
  const requester = context.checkRequestedBy;
  if (!requester || event.interrupted === true) return undefined;
  const at = eventTime(event);
  if (at === undefined) return context.lease ? noTime(state, event.type) : undefined;
  const verdict = mayChange(leaseAt(context, at), requester, at);
  return verdict.ok ? undefined : new LeaseError(state, event.type, `${event.agent} (checking for ${requester})`, verdict);
});

/** A claim is granted when the task is free, expired, or already the claimer's (idempotent). */
const claimGuard = explainedGuard('claimable', ({ context, event, state }) => {
  const at = eventTime(event);
  if (at === undefined) return noTime(state, event.type);
  const verdict = claimLease(leaseAt(context, at), event.agent, at, context.leaseTtlMs);
  return verdict.ok ? undefined : new LeaseError(state, event.type, event.agent, verdict);
});

/** A heartbeat renews the sender's own live lease: not_claimed, claimed_by_other or expired otherwise. */
const heartbeatGuard = explainedGuard('renewable', ({ context, event, state }) => {
  const at = eventTime(event);
  if (at === undefined) return noTime(state, event.type);
  const verdict = renewLease(leaseAt(context, at), event.agent, at, context.leaseTtlMs);
  return verdict.ok ? undefined : new LeaseError(state, event.type, event.agent, verdict);
});

/** The timer's event is for the current lease, not yet marked expired, and its time has come. */
const leaseDueGuard = explainedGuard('leaseDue', ({ context, event, state }) => {
  const { lease } = context;
  const at = eventTime(event);
  if (lease && !context.leaseExpired && lease.claimedBy === event.holder && lease.leaseUntil === event.leaseUntil && at !== undefined && at >= lease.leaseUntil) {
    return undefined;
  }
  return new InvalidTransitionError(state, event.type, `'lease_expired' for ${event.holder} until ${event.leaseUntil} does not match a live lease of this task: it was renewed, released or already expired.`);
});

export const taskMachine = setup({
  types: {
    context: {} as TaskContext,
    events: {} as TaskEvent,
  },
  actors: {
    // Runs the configured check commands and reports check_passed / check_failed through the
    // run's queue. Given by src/task/check-runner.ts; machines/ stays free of processes.
    checkRunner: fromCallback<EventObject, CheckRunInput>(() => {}),
    // The runtime's durable timer (src/actors/deadline-timer.ts), spawned for the lease's expiry.
    deadline: fromCallback<EventObject, { deadline: number; event: LeaseExpiredEvent }>(() => {}),
  },
  actions: {
    // A claim or heartbeat: the lease runs until at + ttl, and its timer is set for that instant.
    holdLease: assign(({ context, event }) => {
      const at = eventTime(event)!;
      const agent = (event as { agent: AgentId }).agent;
      const grant = event.type === 'heartbeat' ? renewLease(leaseAt(context, at), agent, at, context.leaseTtlMs) : claimLease(leaseAt(context, at), agent, at, context.leaseTtlMs);
      if (!grant.ok) throw new Error(`lease refused after its guard passed: ${grant.message}`);
      return { lease: grant.lease, leaseExpired: false };
    }),
    stopLeaseTimer: stopChild(LEASE_TIMER),
    startLeaseTimer: spawnChild('deadline', {
      id: LEASE_TIMER,
      input: ({ context }) => {
        const { claimedBy, leaseUntil } = context.lease!;
        return { deadline: leaseUntil, event: { type: 'lease_expired', holder: claimedBy, leaseUntil } };
      },
    }),
    dropLease: assign({ lease: undefined, leaseExpired: false }),
    noteCheckRequester: assign({ checkRequestedBy: ({ event }) => (event as { agent: AgentId }).agent }),
  },
  guards: {
    supervisor: byRole('supervisor'),
    executor: byRole('executor'),
    checker: byRole('checker'),
    human: byRole('human'),
    'supervisor|executor': byRole('supervisor', 'executor'),
    'supervisor|human': byRole('supervisor', 'human'),
    task: metadataGuard(taskPayloads.create_task, 'Executing'),
    checkFailure: metadataGuard(taskPayloads.check_failed, 'Addressing'),
    question: metadataGuard(taskPayloads.consult, 'Consultation'),
    response: metadataGuard(taskPayloads.respond_consult, 'Consultation'),
    humanQuestion: metadataGuard(taskPayloads.ask_human, 'AwaitingHuman'),
    answer: metadataGuard(taskPayloads.answer, 'the paused state'),
    summary: metadataGuard(taskPayloads.submit, 'Reviewing'),
    notes: metadataGuard(taskPayloads.reject, 'Addressing'),
    lease: leaseGuard,
    claimable: claimGuard,
    renewable: heartbeatGuard,
    leaseDue: leaseDueGuard,
    requesterLease: requesterLeaseGuard,
    interrupted: ({ event }) => (event as { interrupted?: boolean }).interrupted === true,
    checkRetriesLeft: ({ context }) => context.checkRetries + 1 < context.limits.maxCheckRetries,
    reviewCyclesLeft: ({ context }) => context.reviewCycles + 1 < context.limits.maxReviewCycles,
  },
}).createMachine({
  id: 'task',
  initial: 'Idle',
  // Input is a TaskInput, validated here; it is left out of `types` so that it may be left out.
  context: ({ input }) => {
    const parsed = parseInput(taskInputSchema, input, 'Task', 'Idle');
    return freshTask({ limits: { ...DEFAULT_TASK_LIMITS, ...parsed?.limits }, leaseTtlMs: parsed?.lease?.ttlMs ?? DEFAULT_LEASE_TTL_MS });
  },
  states: {
    Idle: {
      on: {
        create_task: {
          guard: and(['supervisor', 'lease', 'task']),
          target: 'Active',
          actions: [assign(({ context, event }) => freshTask(context, event.task)), 'stopLeaseTimer'],
        },
      },
    },
    Active: {
      initial: 'Working',
      on: {
        // Targetless, so a heartbeat while the checks run does not restart them.
        heartbeat: { guard: and(['supervisor|executor', 'renewable']), actions: ['holdLease', 'stopLeaseTimer', 'startLeaseTimer'] },
        lease_expired: { guard: 'leaseDue', actions: [assign({ leaseExpired: true }), 'stopLeaseTimer'] },
        ask_human: {
          guard: and(['supervisor|executor', 'lease', 'humanQuestion']),
          target: 'AwaitingHuman',
          actions: assign({ humanQuestion: ({ event }) => event.question, humanAnswer: undefined }),
        },
      },
      states: {
        resume: { type: 'history', history: 'deep' },
        Working: {
          initial: 'Executing',
          on: {
            claim: { guard: and(['executor', 'claimable']), actions: ['holdLease', 'stopLeaseTimer', 'startLeaseTimer'] },
            consult: {
              guard: and(['executor', 'lease', 'question']),
              target: 'Consultation',
              actions: assign({ consultQuestion: ({ event }) => event.question, consultResponse: undefined }),
            },
          },
          states: {
            resume: { type: 'history', history: 'deep' },
            Executing: {
              on: { check: { guard: and(['executor', 'lease']), target: 'Checking', actions: 'noteCheckRequester' } },
            },
            Checking: {
              initial: 'Running',
              states: {
                Running: {
                  invoke: { src: 'checkRunner', input: ({ context }) => ({ attempt: context.checkRetries + 1 }) },
                  on: {
                    check_passed: {
                      guard: and(['checker', 'requesterLease']),
                      target: 'Passed',
                      actions: assign({ checkRetries: 0, checkFeedback: undefined, failureReason: undefined }),
                    },
                    check_failed: [
                      {
                        guard: and(['checker', 'checkFailure', 'interrupted']),
                        target: '#task.Active.Working.Addressing',
                        actions: assign({
                          checkFeedback: ({ event }) => event.feedback,
                          failureReason: ({ event }) => `Check interrupted: ${event.feedback}`,
                        }),
                      },
                      {
                        guard: and(['checker', 'requesterLease', 'checkFailure', 'checkRetriesLeft']),
                        target: '#task.Active.Working.Addressing',
                        actions: assign({
                          checkRetries: ({ context }) => context.checkRetries + 1,
                          checkFeedback: ({ event }) => event.feedback,
                          failureReason: ({ event }) => `Commands failed: ${event.failed.join(', ')}`,
                        }),
                      },
                      {
                        guard: and(['checker', 'requesterLease', 'checkFailure']),
                        target: '#task.Failed',
                        actions: assign({
                          checkRetries: ({ context }) => context.checkRetries + 1,
                          checkFeedback: ({ event }) => event.feedback,
                          failureReason: ({ context, event }) =>
                            `Check failed ${times(context.limits.maxCheckRetries)} in a row. Last failure:\nCommands failed: ${event.failed.join(', ')}`,
                        }),
                      },
                    ],
                  },
                },
                Passed: {
                  on: {
                    check: { guard: and(['executor', 'lease']), target: 'Running', actions: 'noteCheckRequester' },
                    submit: {
                      guard: and(['executor', 'lease', 'summary']),
                      target: '#task.Active.Reviewing',
                      // ferrus clears the lease on submit: the executor is done, the supervisor claims next.
                      actions: [assign({ submission: ({ event }) => event.summary, review: undefined }), 'dropLease', 'stopLeaseTimer'],
                    },
                  },
                },
              },
            },
            Addressing: {
              on: { check: { guard: and(['executor', 'lease']), target: 'Checking', actions: 'noteCheckRequester' } },
            },
          },
        },
        Consultation: {
          initial: 'Asked',
          on: {
            // ferrus keeps the executor's lease through a consultation; it may claim it again here.
            claim: { guard: and(['executor', 'claimable']), actions: ['holdLease', 'stopLeaseTimer', 'startLeaseTimer'] },
          },
          states: {
            Asked: {
              on: {
                respond_consult: {
                  guard: and(['supervisor', 'lease', 'response']),
                  target: 'Answered',
                  actions: assign({ consultResponse: ({ event }) => event.response }),
                },
              },
            },
            Answered: {
              on: {
                // The response was the executor's to read in Answered; back at work it is spent.
                wait_for_consult: {
                  guard: and(['executor', 'lease']),
                  target: '#task.Active.Working.resume',
                  actions: assign({ consultQuestion: undefined, consultResponse: undefined }),
                },
              },
            },
          },
        },
        Reviewing: {
          on: {
            claim: { guard: and(['supervisor', 'claimable']), actions: ['holdLease', 'stopLeaseTimer', 'startLeaseTimer'] },
            approve: { guard: and(['supervisor', 'lease']), target: '#task.Complete' },
            reject: [
              {
                guard: and(['supervisor', 'lease', 'notes', 'reviewCyclesLeft']),
                target: 'Working.Addressing',
                actions: [
                  assign({
                    reviewCycles: ({ context }) => context.reviewCycles + 1,
                    checkRetries: 0,
                    review: ({ event }) => event.notes,
                    submission: undefined,
                  }),
                  'dropLease',
                  'stopLeaseTimer',
                ],
              },
              {
                guard: and(['supervisor', 'lease', 'notes']),
                target: '#task.Failed',
                actions: assign({
                  reviewCycles: ({ context }) => context.reviewCycles + 1,
                  review: ({ event }) => event.notes,
                  failureReason: ({ context }) => `Task rejected ${times(context.limits.maxReviewCycles)} without resolution.`,
                }),
              },
            ],
          },
        },
      },
    },
    AwaitingHuman: {
      on: {
        // The lease is kept while a person thinks (as in ferrus), and may run out meanwhile.
        lease_expired: { guard: 'leaseDue', actions: [assign({ leaseExpired: true }), 'stopLeaseTimer'] },
        answer: {
          guard: and(['human', 'lease', 'answer']),
          target: '#task.Active.resume',
          actions: assign({ humanAnswer: ({ event }) => event.answer }),
        },
      },
    },
    Complete: {
      entry: ['dropLease', 'stopLeaseTimer'],
      on: {
        create_task: {
          guard: and(['supervisor', 'lease', 'task']),
          target: 'Active',
          actions: [assign(({ context, event }) => freshTask(context, event.task)), 'stopLeaseTimer'],
        },
      },
    },
    Failed: {
      entry: ['dropLease', 'stopLeaseTimer'],
      on: {
        reset: { guard: and(['supervisor|human', 'lease']), target: 'Idle', actions: assign(({ context }) => freshTask(context)) },
      },
    },
  },
});

export type TaskSnapshot = SnapshotFrom<typeof taskMachine>;

/**
 * Version 2 added the lease to the context. A task stored by version 1 has no lease, so it gains
 * an empty one with ferrus's default TTL (the TTL of ferrus.toml reaches only tasks started after).
 */
export const taskMigrations = {
  1: (persisted: { context: Record<string, unknown> }) => ({
    ...persisted,
    context: { leaseTtlMs: DEFAULT_LEASE_TTL_MS, lease: undefined, leaseExpired: false, checkRequestedBy: undefined, ...persisted.context },
  }),
};

/** Where inside a seed state a task is: checks running or passed, a consultation asked or answered. */
export const TASK_STEPS = ['running', 'passed', 'asked', 'answered'] as const;
export type TaskStep = (typeof TASK_STEPS)[number];

/** The seed state a leaf of the machine belongs to ("Active.Working.Checking.Passed" is Checking). */
function seedState(path: readonly string[]): { state: TaskStateName; step?: TaskStep } {
  const index = path.findLastIndex((key) => (TASK_STATES as readonly string[]).includes(key));
  if (index < 0) throw new Error(`'${path.join('.')}' is not a state of the task machine`);
  const step = path[index + 1]?.toLowerCase() as TaskStep | undefined;
  return { state: path[index] as TaskStateName, ...(step && { step }) };
}

const leafPath = (snapshot: TaskSnapshot) => snapshot._nodes.find((n) => n.type === 'atomic')!.path;

/** The seed state the task is in. */
export function taskState(snapshot: TaskSnapshot): TaskStateName {
  return seedState(leafPath(snapshot)).state;
}

/**
 * The state a paused task returns to: for Consultation the working state it consulted from, for
 * AwaitingHuman the state it asked from. Read from the history the machine itself restores from.
 */
export function pausedState(snapshot: TaskSnapshot): TaskStateName | undefined {
  const state = taskState(snapshot);
  const history = state === 'Consultation' ? 'task.Active.Working.resume' : state === 'AwaitingHuman' ? 'task.Active.resume' : undefined;
  const recorded = history ? (snapshot.historyValue as Record<string, Array<{ path: string[] }>>)[history]?.[0] : undefined;
  return recorded ? seedState(recorded.path).state : undefined;
}

const optionalText = z.string().optional();
const count = z.int().nonnegative();

/** The task as people and agents read it (the body of STATE.json, in ferrus's field names). */
export const taskViewSchema = z.object({
  state: z.enum(TASK_STATES),
  step: z.enum(TASK_STEPS).optional(),
  paused_state: z.enum(TASK_STATES).optional(),
  task: optionalText,
  check_retries: count,
  review_cycles: count,
  max_check_retries: count,
  max_review_cycles: count,
  failure_reason: optionalText,
  check_feedback: optionalText,
  review: optionalText,
  submission: optionalText,
  consult_question: optionalText,
  consult_response: optionalText,
  human_question: optionalText,
  human_answer: optionalText,
});
export type TaskView = z.infer<typeof taskViewSchema>;

export function taskView(snapshot: TaskSnapshot): TaskView {
  const { state, step } = seedState(leafPath(snapshot));
  const paused = pausedState(snapshot);
  const c = snapshot.context;
  const view: TaskView = {
    state,
    ...(step && { step }),
    ...(paused && { paused_state: paused }),
    task: c.task,
    check_retries: c.checkRetries,
    review_cycles: c.reviewCycles,
    max_check_retries: c.limits.maxCheckRetries,
    max_review_cycles: c.limits.maxReviewCycles,
    failure_reason: c.failureReason,
    check_feedback: c.checkFeedback,
    review: c.review,
    submission: c.submission,
    consult_question: c.consultQuestion,
    consult_response: c.consultResponse,
    human_question: c.humanQuestion,
    human_answer: c.humanAnswer,
  };
  // Absent rather than undefined, so that a view equals its JSON round trip.
  return Object.fromEntries(Object.entries(view).filter(([, v]) => v !== undefined)) as TaskView;
}
