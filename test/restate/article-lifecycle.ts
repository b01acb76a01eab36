/**
 * A lifecycle of the user's own, as a statewright.config.ts defines it (`defineLifecycle`), for the
 * Restate tests: an article submitted with a reviewer (a metadata guard), reviewed before a durable
 * deadline (the `deadline` actor: `OVERDUE` at `dueAt`), approved, then shipped by an actor the
 * worker performs (`ship`, a promise actor whose result comes back as XState's done event) while a
 * `notify` callback actor reports `NOTIFIED` through its run handle with an idempotency key. And
 * `timed`, whose only timer is an XState `after` delay.
 */
import { assign, fromCallback, fromPromise, setup, type EventObject } from 'xstate';
import { z } from 'zod';
import { defineLifecycle } from '../../src/config/index.js';
import { metadataGuard } from '../../src/graph/index.js';
import type { ActorFactory } from '../../src/actor-contract/run-handle.js';
import { orderMachine } from '../fixtures/order-deadline.js';

export interface ArticleInput {
  /** When the review is overdue (ms since the epoch). */
  readonly dueAt: number;
}

export const articleMachine = setup({
  types: {
    input: {} as ArticleInput,
    context: {} as { dueAt: number; reviewer: string | null; url: string | null; notified: number },
    events: {} as
      | { type: 'SUBMIT'; reviewer?: string }
      | { type: 'APPROVE' }
      | { type: 'REJECT' }
      | { type: 'OVERDUE' }
      | { type: 'SHIP' }
      | { type: 'NOTIFIED' },
  },
  actors: {
    deadline: fromCallback<EventObject, { deadline: number; event: EventObject }>(() => {}),
    ship: fromPromise<{ url: string }, { title: string }>(async () => {
      throw new Error('ship is given by the host');
    }),
    notify: fromCallback<EventObject, { reviewer: string | null }>(() => {}),
  },
  guards: { hasReviewer: metadataGuard(z.object({ reviewer: z.string().min(1) }), 'review') },
}).createMachine({
  id: 'article',
  initial: 'draft',
  context: ({ input }) => ({ dueAt: input.dueAt, reviewer: null, url: null, notified: 0 }),
  states: {
    draft: {
      on: {
        SUBMIT: {
          target: 'review',
          guard: 'hasReviewer',
          actions: assign({ reviewer: ({ event }) => event.reviewer ?? null }),
        },
      },
    },
    review: {
      invoke: [
        { src: 'deadline', input: ({ context }) => ({ deadline: context.dueAt, event: { type: 'OVERDUE' } }) },
        { id: 'notify', src: 'notify', input: ({ context }) => ({ reviewer: context.reviewer }) },
      ],
      on: {
        APPROVE: 'approved',
        REJECT: 'draft',
        OVERDUE: 'overdue',
        NOTIFIED: { actions: assign({ notified: ({ context }) => context.notified + 1 }) },
      },
    },
    approved: { on: { SHIP: 'shipping' } },
    shipping: {
      invoke: {
        id: 'ship',
        src: 'ship',
        input: () => ({ title: 'the article' }),
        onDone: { target: 'shipped', actions: assign({ url: ({ event }) => event.output.url }) },
        onError: 'failed',
      },
    },
    shipped: { type: 'final' },
    failed: { type: 'final' },
    overdue: { type: 'final' },
  },
});

export const article = defineLifecycle({ name: 'article', machine: articleMachine });

/** The worker's actors for the article: `ship` answers a URL, `notify` reports once its step is committed. */
export const articleActors: Record<string, ActorFactory> = {
  ship: (run) =>
    fromPromise<{ url: string }, { title: string }>(async ({ input }) => ({
      url: `https://example.test/${run.runId}/${encodeURIComponent(input.title)}`,
    })),
  notify: (run) =>
    fromCallback(() => {
      run.afterCommit(() =>
        run.send({ type: 'NOTIFIED' }, { actor: 'notify', reason: 'reviewer told', idempotencyKey: 'notified' }),
      );
    }),
};

/** A lifecycle of the config with an XState `after` delay: late 600 ms after it last entered waiting. */
export const timed = defineLifecycle({
  name: 'timed',
  machine: setup({ types: { events: {} as { type: 'AWAY' } | { type: 'BACK' } } }).createMachine({
    id: 'timed',
    initial: 'waiting',
    states: {
      waiting: { after: { 600: 'late' }, on: { AWAY: 'away' } },
      away: { on: { BACK: 'waiting' } },
      late: { type: 'final' },
    },
  }),
});

/** The order of test/fixtures/order-deadline.ts, as a lifecycle of the config. */
export const order = defineLifecycle({ name: 'order', machine: orderMachine });
