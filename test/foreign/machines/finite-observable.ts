/**
 * Origin: statelyai/xstate, packages/core/test/invoke.test.ts, the machine of the test "should work with a finite observable",
 * commit b1811bf77bc2d1a74367328cec7907aa185b70df (xstate 5).
 * Licence: MIT (Copyright (c) 2015 David Khourshid).
 * Adapted: imports: rxjs is no dependency here, so `interval(10).pipe(take(5))` is `countToFour()` below, an
 * observable that emits 0 to 4 and completes as soon as it is subscribed to (the original emits them 10 ms apart).
 */
import { assign, createMachine, fromObservable, type Subscribable } from 'xstate';

/** The corpus's stand-in for rxjs's `interval(10).pipe(take(5))`: 0, 1, 2, 3, 4, then complete. */
function countToFour(): Subscribable<number> {
  return {
    subscribe(observerOrNext: any) {
      const observer = typeof observerOrNext === 'function' ? { next: observerOrNext } : observerOrNext;
      for (let value = 0; value < 5; value++) observer.next?.(value);
      observer.complete?.();
      return { unsubscribe() {} };
    },
  };
}

interface Ctx {
  count: number | undefined;
}
interface Events {
  type: 'COUNT';
  value: number;
}
export const finiteObservable = createMachine({
  types: {} as { context: Ctx; events: Events },
  id: 'obs',
  initial: 'counting',
  context: {
    count: undefined,
  },
  states: {
    counting: {
      invoke: {
        src: fromObservable(() => countToFour()),
        onSnapshot: {
          actions: assign({
            count: ({ event }) => event.snapshot.context,
          }),
        },
        onDone: {
          target: 'counted',
          guard: ({ context }) => context.count === 4,
        },
      },
    },
    counted: {
      type: 'final',
    },
  },
});
