/**
 * Machines of every shape a diagram must draw, as users write them: transitions on the root (an
 * event and a delay), `always`, parallel regions finishing together, arrows across a region's
 * border, history targets in two regions, a parallel root, invoked actors' done and error, self and
 * targetless transitions, guarded branches. It imports only xstate, so tests of `serve` copy it
 * beside a config as it is.
 */
import { createMachine, fromPromise, setup } from 'xstate';

/** `reset` on the root: from any state back to draft. */
export const rootEvent = createMachine({
  id: 'article',
  initial: 'draft',
  on: { reset: '.draft' },
  states: {
    draft: { on: { SUBMIT: 'review' } },
    review: { on: { APPROVE: 'published', REJECT: 'draft' } },
    published: { type: 'final' },
  },
});

/** A delay on the root, and a state left at once by `always`. */
export const rootDelay = createMachine({
  id: 'ticker',
  initial: 'idle',
  after: { 1000: '.ticked' },
  states: {
    idle: { on: { GO: 'ticked' } },
    ticked: { always: 'idle' },
  },
});

/** Two regions that finish together (`onDone`), a delay in one, and an arrow from inside a region to outside. */
export const parallelRegions = createMachine({
  id: 'expense',
  initial: 'draft',
  states: {
    draft: { on: { SUBMIT: 'checks' } },
    checks: {
      type: 'parallel',
      onDone: 'paid',
      states: {
        manager: {
          initial: 'managerApproval',
          states: {
            managerApproval: {
              after: { 20000: 'approved' },
              on: { APPROVE: 'approved', WITHDRAW: '#expense.draft' },
            },
            approved: { type: 'final' },
          },
        },
        finance: {
          initial: 'pending',
          states: { pending: { on: { BOOKED: 'booked' } }, booked: { type: 'final' } },
        },
      },
    },
    paid: { type: 'final' },
  },
});

/** Coming back on into two regions' history states, one shallow and one deep. */
export const historyTargets = createMachine({
  id: 'player',
  initial: 'on',
  states: {
    on: {
      type: 'parallel',
      on: { OFF: 'off' },
      states: {
        audio: {
          initial: 'playing',
          states: {
            playing: { on: { PAUSE: 'paused' } },
            paused: { on: { PLAY: 'playing' } },
            resume: { type: 'history' },
          },
        },
        video: {
          initial: 'hd',
          states: {
            hd: {
              initial: 'steady',
              states: { steady: { on: { BUFFER: 'buffering' } }, buffering: {} },
              on: { SD: 'sd' },
            },
            sd: { on: { HD: 'hd' } },
            resume: { type: 'history', history: 'deep' },
          },
        },
      },
    },
    off: { on: { ON: ['on.audio.resume', 'on.video.resume'] } },
  },
});

/** A machine that is parallel at its root: two independent switches. */
export const parallelRoot = createMachine({
  id: 'switches',
  type: 'parallel',
  states: {
    light: { initial: 'dark', states: { dark: { on: { LIGHT_ON: 'lit' } }, lit: { on: { LIGHT_OFF: 'dark' } } } },
    fan: {
      initial: 'still',
      states: { still: { on: { FAN_ON: 'spinning' } }, spinning: { on: { FAN_OFF: 'still' } } },
    },
  },
});

/** An invoked promise's done and error, a self transition, a targetless one, guarded branches, a compound's own restart. */
export const invokedActor = setup({
  actors: { fetchUser: fromPromise(async () => ({ name: 'ada' })) },
  guards: { isAdmin: () => false, isGuest: () => true },
}).createMachine({
  id: 'profile',
  initial: 'loading',
  states: {
    loading: { invoke: { src: 'fetchUser', onDone: 'shown', onError: 'failed' } },
    shown: {
      initial: 'reading',
      on: {
        RESTART: '.reading',
        REFRESH: 'loading',
        PING: { actions: () => {} },
        TOUCH: { target: 'shown', reenter: true },
      },
      states: {
        reading: {
          on: {
            EDIT: [
              { guard: 'isAdmin', target: 'editing' },
              { guard: 'isGuest', target: 'asking' },
            ],
          },
        },
        editing: {},
        asking: {},
      },
    },
    failed: { type: 'final' },
  },
});

/** Every shape above, by name. */
export const MACHINE_SHAPES = {
  rootEvent,
  rootDelay,
  parallelRegions,
  historyTargets,
  parallelRoot,
  invokedActor,
};
