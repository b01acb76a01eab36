/**
 * Machines a user could write, for the tests of `statewright/testing`: parallel regions, a history
 * state and an `after`, an invoked actor with onDone and onError, and faults planted on purpose.
 */
import { assign, fromPromise, setup } from 'xstate';
import { z } from 'zod';
import { defineLifecycle } from '../../src/config/index.js';
import { metadataGuard, roleGuard } from '../../src/graph/index.js';

/** An order: parallel regions (payment and shipping), a history state to resume to, a 30-day `after`, a fetch. */
export const orderMachine = setup({
  types: { context: {} as { notes: string[] } },
  actors: { fetchQuote: fromPromise(async () => ({ price: 10 })) },
  guards: { hasNote: ({ event }) => typeof (event as { note?: unknown }).note === 'string' },
}).createMachine({
  id: 'order',
  context: { notes: [] },
  initial: 'quoting',
  states: {
    quoting: {
      invoke: { src: 'fetchQuote', onDone: 'open', onError: 'failed' },
    },
    open: {
      type: 'parallel',
      on: { HOLD: 'held' },
      states: {
        payment: {
          initial: 'unpaid',
          states: {
            hist: { type: 'history', history: 'deep' },
            unpaid: { on: { PAY: 'paid' } },
            paid: { type: 'final' },
          },
        },
        shipping: {
          initial: 'waiting',
          states: {
            waiting: { on: { SHIP: 'shipped' } },
            shipped: { type: 'final' },
          },
        },
      },
      onDone: 'done',
    },
    held: {
      on: {
        RESUME: { target: 'open.payment.hist' },
        NOTE: {
          guard: 'hasNote',
          actions: assign({
            notes: ({ context, event }) => [...context.notes, (event as unknown as { note: string }).note],
          }),
        },
      },
      after: { 2592000000: 'expired' }, // 30 days
    },
    expired: { type: 'final' },
    failed: { type: 'final' },
    done: { type: 'final' },
  },
});

export const order = defineLifecycle({
  name: 'order',
  machine: orderMachine,
  eventSchemas: { NOTE: z.object({ note: z.string().min(1) }) },
  // The notes only accumulate: they decide nothing, and would make the graph endless.
  testContextKey: () => null,
});

/** A review with a metadata guard: approving needs a reviewer. */
export const review = defineLifecycle({
  name: 'review',
  machine: setup({}).createMachine({
    id: 'review',
    initial: 'open',
    states: {
      open: {
        on: {
          APPROVE: { target: 'approved', guard: metadataGuard(z.object({ reviewer: z.string().min(1) }), 'approved') },
          CLOSE: 'closed',
        },
      },
      approved: { type: 'final' },
      closed: { type: 'final' },
    },
  }),
});

/**
 * Planted fault: a `Date` in the context, which a guard then reads. XState keeps the `Date`; a run
 * restored from its JSON has a string there, and the guard throws.
 */
export const dated = defineLifecycle({
  name: 'dated',
  machine: setup({
    types: { context: {} as { openedAt: Date | undefined } },
    guards: {
      openedBefore: ({ context, event }) => context.openedAt!.getTime() <= (event as unknown as { at: number }).at,
    },
  }).createMachine({
    id: 'dated',
    context: { openedAt: undefined },
    initial: 'idle',
    states: {
      idle: {
        on: {
          OPEN: {
            target: 'open',
            actions: assign({ openedAt: ({ event }) => new Date((event as unknown as { at: number }).at) }),
          },
        },
      },
      open: { on: { CLOSE: { target: 'closed', guard: 'openedBefore' }, HOLD: 'held' } },
      held: { on: { RELEASE: 'open' } },
      closed: { type: 'final' },
    },
  }),
});

/**
 * Planted fault: a `Map` in the context, which a guard then reads. XState keeps the `Map`; JSON
 * keeps `{}` of it, so a run restored from its store has a plain object there, and the guard throws.
 */
export const mapped = defineLifecycle({
  name: 'mapped',
  machine: setup({
    types: { context: {} as { approvers: Map<string, number> | undefined } },
    guards: { approvedByAnn: ({ context }) => context.approvers!.has('ann') },
  }).createMachine({
    id: 'mapped',
    context: { approvers: undefined },
    initial: 'idle',
    states: {
      idle: { on: { OPEN: { target: 'open', actions: assign({ approvers: () => new Map([['ann', 1]]) }) } } },
      open: { on: { CLOSE: { target: 'closed', guard: 'approvedByAnn' } } },
      closed: { type: 'final' },
    },
  }),
});

/**
 * Planted fault: an event schema narrower than the machine. PAY's schema allows at most 100, but
 * the machine sends a payment over 100 to review: no payload built from the schema takes that
 * transition, and the one `testEvents` gives (150) is refused by the schema.
 */
const payMachine = setup({
  guards: { large: ({ event }) => (event as { amount?: number }).amount! > 100 },
}).createMachine({
  id: 'pay',
  initial: 'open',
  states: {
    open: { on: { PAY: [{ guard: 'large', target: 'review' }, { target: 'paid' }] } },
    review: { on: { APPROVE: 'paid' } },
    paid: { type: 'final' },
  },
});
const paySchemas = { PAY: z.object({ amount: z.number().min(1).max(100) }) };
export const pay = defineLifecycle({ name: 'pay', machine: payMachine, eventSchemas: paySchemas });
export const payWithLargeEvent = defineLifecycle({
  name: 'pay',
  machine: payMachine,
  eventSchemas: paySchemas,
  testEvents: {
    PAY: [
      { type: 'PAY', amount: 5 },
      { type: 'PAY', amount: 150 },
    ],
  },
});

/** An event only a role may send (a role guard): no schema says how to name the sender. */
export const roles = defineLifecycle({
  name: 'roles',
  machine: setup({}).createMachine({
    id: 'roles',
    initial: 'draft',
    states: {
      draft: { on: { PUBLISH: { target: 'published', guard: roleGuard(['editor']) } } },
      published: { type: 'final' },
    },
  }),
});

/** A shop as version 1 stored it: a cart, then review, then paid; a coupon kept in the context. */
export const shopV1 = defineLifecycle({
  name: 'shop',
  machine: setup({ types: { context: {} as { items: number; coupon: string } } }).createMachine({
    id: 'shop',
    context: { items: 1, coupon: 'none' },
    initial: 'cart',
    states: {
      cart: { on: { CHECKOUT: 'review' } },
      review: { on: { APPROVE: 'paid' } },
      paid: { type: 'final' },
    },
  }),
});

const shopV2Machine = setup({ types: { context: {} as { items: number; coupon: string } } }).createMachine({
  id: 'shop',
  context: { items: 1, coupon: 'none' },
  initial: 'cart',
  states: {
    cart: { on: { CHECKOUT: 'checking' } },
    checking: { on: { APPROVE: 'paid' } },
    paid: { type: 'final' },
  },
});
type Persisted = { value: unknown; context: { items: number; coupon?: string } };
const renamed = (s: Persisted) => ({ ...s, value: s.value === 'review' ? 'checking' : s.value });

/** Planted fault: `review` renamed `checking` with no version bump: the stored runs in review no longer restore. */
export const shopRenamed = defineLifecycle({ name: 'shop', machine: shopV2Machine });
/** Planted fault: version 2's migration renames the state but drops the coupon, which version 2's context has. */
export const shopDroppingMigration = defineLifecycle({
  name: 'shop',
  machine: shopV2Machine,
  version: 2,
  migrations: { 1: (s: Persisted) => ({ ...renamed(s), context: { items: s.context.items } }) },
});
/** The edit done right: version 2 with a migration that carries the stored runs. */
export const shopMigrated = defineLifecycle({
  name: 'shop',
  machine: shopV2Machine,
  version: 2,
  migrations: { 1: renamed },
});
