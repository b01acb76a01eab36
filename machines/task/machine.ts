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
import { lifecycleHelpers } from '../../src/graph/lifecycle-helpers.js';
import { parseInput } from '../../src/graph/metadata-guard.js';
import type { AgentId } from './agent.js';
import { DEFAULT_LEASE_TTL_MS, DEFAULT_TASK_LIMITS, taskInputSchema } from './config.js';
import { eventTime, freshTask, leaseAt, type TaskContext } from './context.js';
import type { CheckRunInput, LeaseExpiredEvent, TaskEvent } from './events.js';
import { taskGuards } from './guards.js';
import { claimLease, renewLease } from './lease.js';

const times = (n: number) => `${n} ${n === 1 ? 'time' : 'times'}`;

const LEASE_TIMER = 'lease-timer';

export const taskMachine = setup({
  types: {
    context: {} as TaskContext,
    events: {} as TaskEvent,
  },
  actors: {
    // Runs the configured check commands and reports check_passed / check_failed through the
    // run's queue. Given by src/task/check-runner.ts; machines/ stays free of processes.
    checkRunner: fromCallback<EventObject, CheckRunInput>(() => {}),
    // The runtime's durable timer (src/runtime/timers/deadline-timer.ts), spawned for the lease's expiry.
    deadline: fromCallback<EventObject, { deadline: number; event: LeaseExpiredEvent }>(() => {}),
  },
  actions: {
    // A claim or heartbeat: the lease runs until at + ttl, and its timer is set for that instant.
    holdLease: assign(({ context, event }) => {
      const at = eventTime(event)!;
      const agent = (event as { agent: AgentId }).agent;
      const grant =
        event.type === 'heartbeat'
          ? renewLease(leaseAt(context, at), agent, at, context.leaseTtlMs)
          : claimLease(leaseAt(context, at), agent, at, context.leaseTtlMs);
      if (!grant.ok) throw new Error(`lease refused after its guard passed: ${grant.message}`);
      return { lease: grant.lease, leaseExpired: false };
    }),
    /** create_task: a fresh context for the new task. */
    startTask: assign(({ context, event }) =>
      freshTask(context, (event as Extract<TaskEvent, { type: 'create_task' }>).task),
    ),
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
  guards: taskGuards,
}).createMachine({
  id: 'task',
  initial: 'Idle',
  // Input is a TaskInput, validated here; it is left out of `types` so that it may be left out.
  context: ({ input }) => {
    const parsed = parseInput(taskInputSchema, input, 'Task', 'Idle');
    return freshTask({
      limits: { ...DEFAULT_TASK_LIMITS, ...parsed?.limits },
      leaseTtlMs: parsed?.lease?.ttlMs ?? DEFAULT_LEASE_TTL_MS,
    });
  },
  states: {
    Idle: {
      meta: {
        waitsFor: 'the supervisor, to create a task (create_task)',
        unbounded: 'a task board runs task after task: each create_task starts a new task with fresh budgets',
      },
      on: {
        create_task: {
          guard: and(['supervisor', 'lease', 'task']),
          target: 'Active',
          actions: ['startTask', 'stopLeaseTimer'],
        },
      },
    },
    Active: {
      initial: 'Working',
      on: {
        // Targetless, so a heartbeat while the checks run does not restart them.
        heartbeat: {
          guard: and(['supervisor|executor', 'renewable']),
          actions: ['holdLease', 'stopLeaseTimer', 'startLeaseTimer'],
        },
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
          // The executor works outside the runtime; while it holds the lease, lease-timer (spawned on claim) ends a silent claim.
          meta: {
            waitsFor:
              'the executor agent, which works outside the runtime and claims, checks, consults, asks a person or submits',
          },
          initial: 'Executing',
          on: {
            claim: {
              guard: and(['executor', 'claimable']),
              actions: ['holdLease', 'stopLeaseTimer', 'startLeaseTimer'],
            },
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
                        meta: {
                          unbounded:
                            'a check whose process died spends no retry: only another crash of its host repeats this',
                        },
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
                    check: {
                      guard: and(['executor', 'lease']),
                      target: 'Running',
                      actions: 'noteCheckRequester',
                      meta: {
                        unbounded:
                          'the executor may check again after a pass as often as it likes: a pass spends no budget, and only the lease holder may',
                      },
                    },
                    submit: {
                      guard: and(['executor', 'lease', 'summary']),
                      target: '#task.Active.Reviewing',
                      // ferrus clears the lease on submit: the executor is done, the supervisor claims next.
                      actions: [
                        assign({ submission: ({ event }) => event.summary, review: undefined }),
                        'dropLease',
                        'stopLeaseTimer',
                      ],
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
          meta: {
            waitsFor: 'the supervisor agent to respond (Asked), then the executor to resume (Answered)',
            unbounded:
              'an executor may consult as often as it needs; each consultation waits for the supervisor, and the budgets count checks and reviews, not questions',
          },
          initial: 'Asked',
          on: {
            // ferrus keeps the executor's lease through a consultation; it may claim it again here.
            claim: {
              guard: and(['executor', 'claimable']),
              actions: ['holdLease', 'stopLeaseTimer', 'startLeaseTimer'],
            },
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
          meta: { waitsFor: 'the supervisor agent, to approve or reject the submission' },
          on: {
            claim: {
              guard: and(['supervisor', 'claimable']),
              actions: ['holdLease', 'stopLeaseTimer', 'startLeaseTimer'],
            },
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
                  failureReason: ({ context }) =>
                    `Task rejected ${times(context.limits.maxReviewCycles)} without resolution.`,
                }),
              },
            ],
          },
        },
      },
    },
    AwaitingHuman: {
      meta: {
        waitsFor: 'a person, to answer the question (answer)',
        unbounded: 'agents may ask a person as often as they need; the person decides each time',
      },
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
      meta: {
        waitsFor: 'the supervisor, to create the next task',
        unbounded: 'a task board runs task after task: each create_task starts a new task with fresh budgets',
      },
      entry: ['dropLease', 'stopLeaseTimer'],
      on: {
        create_task: {
          guard: and(['supervisor', 'lease', 'task']),
          target: 'Active',
          actions: ['startTask', 'stopLeaseTimer'],
        },
      },
    },
    Failed: {
      meta: {
        waitsFor: 'the supervisor or a person, to reset the task',
        unbounded: 'a person decides each reset of a failed task',
      },
      entry: ['dropLease', 'stopLeaseTimer'],
      on: {
        reset: {
          guard: and(['supervisor|human', 'lease']),
          target: 'Idle',
          actions: assign(({ context }) => freshTask(context)),
        },
      },
    },
  },
});

export type TaskSnapshot = SnapshotFrom<typeof taskMachine>;

/**
 * The task lifecycle's helpers, like every lifecycle's. Its states are the machine's leaves
 * ("Active.Working.Checking.Passed"); `taskState` folds them back into the seed's nine.
 */
export const task = lifecycleHelpers<string, TaskEvent['type'], never>(taskMachine);
