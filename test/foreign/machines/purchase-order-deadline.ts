/**
 * Origin: statelyai/xstate, examples/workflow-purchase-order-deadline/main.ts, commit b1811bf77bc2d1a74367328cec7907aa185b70df (xstate 5).
 * Licence: MIT (Copyright (c) 2015 David Khourshid).
 * Adapted: imports (cockatiel's retry policy, used only by the demo, left out with the demo driver); the CancelOrder actor (a 1 s setTimeout that may fail at random) given a stand-in that resolves at once through `provide`.
 */
import { createMachine, fromPromise } from 'xstate';

async function delay(ms: number, errorProbability: number = 0): Promise<void> {
  return new Promise((resolve, reject) => {
    setTimeout(() => {
      if (Math.random() < errorProbability) {
        reject({ type: 'ServiceNotAvailable' });
      } else {
        resolve();
      }
    }, ms);
  });
}

// https://github.com/serverlessworkflow/specification/blob/main/examples/README.md#purchase-order-deadline
export const workflow = createMachine(
  {
    id: 'order',
    types: {} as {
      events:
        | {
            type: 'OrderCreatedEvent';
          }
        | {
            type: 'OrderConfirmedEvent';
          }
        | {
            type: 'ShipmentSentEvent';
          }
        | {
            type: 'OrderFinishedEvent';
          };
    },
    initial: 'StartNewOrder',
    after: {
      PT30D: { target: '.CancelOrder' },
    },
    states: {
      StartNewOrder: {
        on: {
          OrderCreatedEvent: {
            actions: ['logNewOrderCreated'],
            target: 'WaitForOrderConfirmation',
          },
        },
      },
      WaitForOrderConfirmation: {
        on: {
          OrderConfirmedEvent: {
            actions: ['logOrderConfirmed'],
            target: 'WaitOrderShipped',
          },
        },
      },
      WaitOrderShipped: {
        on: {
          ShipmentSentEvent: {
            actions: ['logOrderShipped'],
            target: 'OrderFinished',
          },
        },
      },
      OrderFinished: {
        type: 'final',
        entry: ['logOrderFinished'],
      },
      CancelOrder: {
        invoke: {
          src: 'CancelOrder',
          onDone: {
            target: 'OrderCancelled',
          },
        },
      },
      OrderCancelled: {
        type: 'final',
        entry: ['logOrderCancelled'],
      },
    },
  },
  {
    delays: {
      // 15 seconds instead of 30 days
      PT30D: 15 * 1000,
    },
    actions: {
      logNewOrderCreated: () => {
        console.log('logNewOrderCreated');
      },
      logOrderConfirmed: () => {
        console.log('logOrderConfirmed');
      },
      logOrderShipped: () => {
        console.log('logOrderShipped');
      },
      logOrderFinished: () => {
        console.log('logOrderFinished');
      },
      logOrderCancelled: () => {
        console.log('logOrderCancelled');
      },
    },
    actors: {
      CancelOrder: fromPromise(async () => {
        console.log('Starting CancelOrder');
        await delay(1000);
        console.log('Completed CancelOrder');
      }),
    },
  },
);

/** The corpus's: cancelling resolves at once. */
export const purchaseOrderDeadline = workflow.provide({ actors: { CancelOrder: fromPromise(async () => {}) } });
