/**
 * Origin: statelyai/xstate, examples/workflow-check-inbox/main.ts, commit b1811bf77bc2d1a74367328cec7907aa185b70df (xstate 5).
 * Licence: MIT (Copyright (c) 2015 David Khourshid).
 * Adapted: imports only, and the demo driver left out. Stand-ins through `provide`: the schedule (a setInterval sending `reminder`) sends nothing, so the corpus paths send `reminder` as the interval would; checking the inbox answers the example's two messages at once; sending the texts answers at once.
 */
import { assign, fromCallback, fromPromise, setup } from 'xstate';

async function delay(ms: number): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(() => {
      resolve();
    }, ms);
  });
}

interface Message {
  subject: string;
  priority: 'high' | 'low';
}

// https://github.com/serverlessworkflow/specification/tree/main/examples#check-inbox-periodically
export const workflow = setup({
  types: {
    context: {} as {
      messages: Message[];
    },
  },
  actors: {
    schedule: fromCallback<any, { interval: number }>(({ input, sendBack }) => {
      const i = setInterval(() => {
        sendBack({ type: 'reminder' });
      }, input.interval);

      return () => {
        clearInterval(i);
      };
    }),
    checkInboxFunction: fromPromise(async () => {
      await delay(1000);

      return [
        {
          subject: 'Hello',
          priority: 'high',
        },
        {
          subject: 'Hi',
          priority: 'low',
        },
      ] satisfies Message[];
    }),
    sendTextsFunction: fromPromise(async ({ input }: { input: { messages: Message[] } }) => {
      await Promise.all(
        input.messages.map(async (message) => {
          console.log('sending text', message.subject);
          if (message.priority === 'high') {
            await delay(100);
          } else {
            await delay(500);
          }
          console.log('text sent', message.subject);
        }),
      );

      return {
        status: 'success',
      };
    }),
  },
}).createMachine({
  id: 'checkInbox',
  initial: 'Idle',
  context: {
    messages: [],
  },
  invoke: {
    src: 'schedule',
    input: {
      interval: 2000,
    },
  },
  states: {
    Idle: {
      on: {
        reminder: 'CheckInbox',
      },
    },
    CheckInbox: {
      invoke: {
        src: 'checkInboxFunction',
        onDone: {
          target: 'SendTextForHighPriority',
          actions: assign({
            messages: ({ event }) => event.output,
          }),
        },
      },
    },
    SendTextForHighPriority: {
      invoke: {
        src: 'sendTextsFunction',
        input: ({ context }) => ({
          messages: context.messages,
        }),
        onDone: {
          target: 'Idle',
        },
      },
    },
  },
});

/** The corpus's stand-ins: the paths send `reminder` themselves; the inbox's two messages arrive at once. */
export const checkInbox = workflow.provide({
  actors: {
    schedule: fromCallback(() => {}),
    checkInboxFunction: fromPromise(
      async () =>
        [
          { subject: 'Hello', priority: 'high' },
          { subject: 'Hi', priority: 'low' },
        ] satisfies Message[],
    ),
    sendTextsFunction: fromPromise(async () => ({ status: 'success' })),
  },
});
