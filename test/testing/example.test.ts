/**
 * Testing a machine of your own with `statewright/testing` in vitest: one test per generated path,
 * each driven through statewright's runtime on SQLite beside plain XState, with a crash at every
 * commit. Imports the package as a user does (built: `npm test` builds before it runs the suite).
 * See docs/testing-your-machines.md.
 */
import { defineLifecycle } from 'statewright';
import { everyPath, testLifecycle } from 'statewright/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { fromPromise, setup } from 'xstate';
import { z } from 'zod';

const order = defineLifecycle({
  name: 'order',
  machine: setup({
    actors: { charge: fromPromise(async () => ({ receipt: 'r-1' })) },
  }).createMachine({
    id: 'order',
    initial: 'cart',
    states: {
      cart: { on: { CHECKOUT: 'paying' } },
      paying: { invoke: { src: 'charge', onDone: 'paid', onError: 'cart' } },
      paid: {
        on: { SHIP: 'shipped', REFUND: 'refunded' },
        // Unshipped for 30 days: refunded. The test clock makes it milliseconds.
        after: { 2592000000: 'refunded' },
      },
      shipped: { type: 'final' },
      refunded: { type: 'final' },
    },
  }),
  eventSchemas: { CHECKOUT: z.object({ items: z.number().int().min(1) }) },
});

describe('every path of order', () => {
  // The charge must not run in a test: a stand-in answers done or error as each path needs.
  const test = testLifecycle(order, { stubActors: ['charge'] });
  afterAll(() => test.close());

  it('has paths for every transition, with payloads built from the event schemas', () => {
    expect(test.uncovered).toEqual([]);
    expect(test.unbuildable).toEqual([]);
    expect(everyPath(order).paths.map((p) => p.description)).toContain(
      'CHECKOUT → xstate.done.actor.0.order.paying → xstate.after.2592000000.order.paid',
    );
  });

  for (const path of test.paths) it(path.description, () => test.expectPath(path));
});
