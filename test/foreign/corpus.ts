/**
 * The corpus: XState v5 machines this project did not write (each file in machines/ names its origin
 * and licence), with the paths that walk every state and transition of each. Other tests import
 * `foreignMachines` to hold their own part (check, verify, explain, the diagrams) over every one.
 */
import { workflow as asyncSubflow } from './machines/async-subflow.js';
import { workflow as carAuctionBids } from './machines/car-auction-bids.js';
import { checkInbox } from './machines/check-inbox.js';
import { customGuard } from './machines/custom-guard.js';
import { deepHistory } from './machines/deep-history.js';
import { donutMachine } from './machines/donut-maker.js';
import { fetchAnswering, fetchFailing } from './machines/fetch.js';
import { workflow as fillingWater } from './machines/filling-water.js';
import { finiteObservable } from './machines/finite-observable.js';
import { friend } from './machines/friend.js';
import { friendsMachine } from './machines/friends-list.js';
import { issueArticle } from './machines/issue-article.js';
import { issueChecks } from './machines/issue-checks.js';
import { parallelExecution } from './machines/parallel-execution.js';
import { parallelHistory } from './machines/parallel-history.js';
import { parentWorkflow } from './machines/payment-confirmation.js';
import { purchaseOrderDeadline } from './machines/purchase-order-deadline.js';
import { someParentMachine } from './machines/send-to-child.js';
import { shallowHistory } from './machines/shallow-history.js';
import { spawnReferenced } from './machines/spawn-referenced.js';
import { spawnedReducer } from './machines/spawned-reducer.js';
import { stopwatch } from './machines/stopwatch.js';
import { ticTacToeMachine } from './machines/tic-tac-toe.js';
import { childDone, type ForeignMachine, finished, reached } from './foreign-machine.js';

export * from './foreign-machine.js';

const XSTATE = 'statelyai/xstate';
const AT = 'commit b1811bf77bc2d1a74367328cec7907aa185b70df';
const MIT = 'MIT';

const play = (...cells: number[]) => cells.map((value) => ({ send: { type: 'PLAY', value } }));
const bid = (amount: number, id: string) => ({
  send: {
    type: 'CarBidEvent',
    bid: { carid: 'car123', amount, bidder: { id, firstName: 'Jane', lastName: 'Doe' } },
  },
});
const payment = (amount: number) => ({
  type: 'PaymentReceivedEvent',
  accountId: '1234',
  payment: { amount },
  customer: { name: 'John Doe' },
  funds: { available: true },
});

export const foreignMachines: readonly ForeignMachine[] = [
  {
    name: 'expense-checks',
    machine: issueChecks,
    origin: 'statewright issue 39 (its 3-state example, written from the issue)',
    licence: "this project's",
    shapes: ['parallel regions'],
    paths: [
      {
        name: 'both checks pass',
        steps: [{ send: { type: 'SUBMIT' } }, { send: { type: 'BUDGET_OK' } }, { send: { type: 'LEGAL_OK' } }],
      },
      {
        name: 'legal first',
        steps: [{ send: { type: 'SUBMIT' } }, { send: { type: 'LEGAL_OK' } }, { send: { type: 'BUDGET_OK' } }],
      },
    ],
  },
  {
    name: 'article',
    machine: issueArticle,
    origin: 'statewright issue 39 (its article example, as test/support/user-config.ts writes it)',
    licence: "this project's",
    shapes: [],
    paths: [
      {
        name: 'rejected once, then published',
        steps: [
          { send: { type: 'SUBMIT' } },
          { send: { type: 'REJECT' } },
          { send: { type: 'SUBMIT' } },
          { send: { type: 'APPROVE' } },
        ],
      },
    ],
  },
  {
    name: 'parallel-execution',
    machine: parallelExecution,
    origin: `${XSTATE} examples/workflow-parallel/main.ts, ${AT}`,
    licence: MIT,
    shapes: ['parallel regions', 'invoked promise', 'output'],
    paths: [{ name: 'both branches resolve', started: finished, steps: [] }],
  },
  {
    name: 'purchase-order',
    machine: purchaseOrderDeadline,
    origin: `${XSTATE} examples/workflow-purchase-order-deadline/main.ts, ${AT}`,
    licence: MIT,
    shapes: ['root after', 'after (named delay)', 'invoked promise'],
    paths: [
      {
        name: 'finished before the deadline',
        steps: [
          { send: { type: 'OrderCreatedEvent' } },
          { advance: 10_000 },
          { send: { type: 'OrderConfirmedEvent' } },
          { send: { type: 'ShipmentSentEvent' } },
        ],
      },
      {
        name: 'cancelled at the deadline',
        steps: [{ send: { type: 'OrderCreatedEvent' } }, { advance: 15_000, until: finished }],
      },
      {
        name: 'cancelled at the deadline armed before the last event',
        steps: [{ advance: 10_000 }, { send: { type: 'OrderCreatedEvent' } }, { advance: 5000, until: finished }],
      },
    ],
  },
  {
    name: 'car-auction',
    machine: carAuctionBids,
    origin: `${XSTATE} examples/workflow-car-auction-bids/main.ts, ${AT}`,
    licence: MIT,
    shapes: ['after (named delay)', 'output'],
    paths: [
      {
        name: 'two bids, the highest wins',
        steps: [bid(3000, 'xyz'), bid(4000, 'abc'), { advance: 3000 }],
      },
      {
        name: 'bids while the delay runs',
        steps: [{ advance: 1000 }, bid(3000, 'xyz'), { advance: 1000 }, bid(4000, 'abc'), { advance: 1000 }],
      },
    ],
  },
  {
    name: 'payment-confirmation',
    machine: parentWorkflow,
    origin: `${XSTATE} examples/workflow-reusing-functions/main.ts, ${AT}`,
    licence: MIT,
    shapes: [
      'invoked machine',
      'invoked promise',
      'onSnapshot',
      'forwardTo',
      "'*' wildcard",
      'sendParent',
      'always',
      'root on',
    ],
    paths: [
      {
        name: 'funds available',
        steps: [{ send: payment(100), until: childDone('paymentconfirmation') }],
      },
      {
        name: 'insufficient funds',
        steps: [{ send: payment(5000), until: childDone('paymentconfirmation') }],
      },
    ],
  },
  {
    name: 'stopwatch',
    machine: stopwatch,
    origin: `${XSTATE} examples/stopwatch/src/stopwatchMachine.ts, ${AT}`,
    licence: MIT,
    shapes: ['invoked callback', 'root on'],
    paths: [
      {
        name: 'run, stop, run, reset',
        steps: [
          { send: { type: 'start' } },
          { send: { type: 'TICK' } },
          { send: { type: 'TICK' } },
          { send: { type: 'stop' } },
          { send: { type: 'start' } },
          { send: { type: 'TICK' } },
          { send: { type: 'reset' } },
        ],
      },
    ],
  },
  {
    name: 'fetch',
    machine: fetchAnswering,
    origin: `${XSTATE} examples/fetch/src/fetchMachine.ts, ${AT}`,
    licence: MIT,
    shapes: ['invoked promise'],
    paths: [{ name: 'the greeting arrives', steps: [{ send: { type: 'FETCH' }, until: reached('success') }] }],
  },
  {
    name: 'fetch-failing',
    machine: fetchFailing,
    origin: `${XSTATE} examples/fetch/src/fetchMachine.ts, ${AT} (its fetch failing every time)`,
    licence: MIT,
    shapes: ['invoked promise', 'after (numeric delay)'],
    paths: [
      {
        name: 'fails, retried by the delay and by hand',
        steps: [
          { send: { type: 'FETCH' }, until: reached('failure') },
          { advance: 1000, until: reached('failure') },
          { send: { type: 'RETRY' }, until: reached('failure') },
        ],
      },
    ],
  },
  {
    name: 'filling-water',
    machine: fillingWater,
    origin: `${XSTATE} examples/workflow-filling-water/main.ts, ${AT}`,
    licence: MIT,
    shapes: ['input', 'always', 'after (numeric delay)'],
    paths: [
      { name: 'two to fill', input: { current: 0, max: 2 }, steps: [{ advance: 500 }, { advance: 500 }] },
      { name: 'already full', input: { current: 3, max: 3 }, steps: [] },
    ],
  },
  {
    name: 'async-subflow',
    machine: asyncSubflow,
    origin: `${XSTATE} examples/workflow-async-subflow/main.ts, ${AT}`,
    licence: MIT,
    shapes: ['invoked machine', 'invoked promise'],
    paths: [{ name: 'onboarded', started: finished, steps: [] }],
  },
  {
    name: 'check-inbox',
    machine: checkInbox,
    origin: `${XSTATE} examples/workflow-check-inbox/main.ts, ${AT}`,
    licence: MIT,
    shapes: ['invoked callback', 'invoked promise'],
    paths: [
      {
        name: 'two reminders',
        steps: [
          { send: { type: 'reminder' }, until: reached('Idle') },
          { send: { type: 'reminder' }, until: reached('Idle') },
        ],
      },
    ],
  },
  {
    name: 'friend',
    machine: friend,
    origin: `${XSTATE} examples/friends-list-react/src/friendMachine.ts, ${AT}`,
    licence: MIT,
    shapes: ['input', 'invoked promise', 'root on'],
    paths: [
      {
        name: 'renamed, saved, then an edit cancelled',
        input: { name: 'Ada' },
        steps: [
          { send: { type: 'EDIT' } },
          { send: { type: 'SET_NAME', value: 'Grace' } },
          { send: { type: 'SAVE' }, until: reached('reading') },
          { send: { type: 'EDIT' } },
          { send: { type: 'SET_NAME', value: 'Hopper' } },
          { send: { type: 'CANCEL' } },
        ],
      },
    ],
  },
  {
    name: 'friends-list',
    machine: friendsMachine,
    origin: `${XSTATE} examples/friends-list-react/src/friendsMachine.ts, ${AT}`,
    licence: MIT,
    shapes: ['spawned from inline logic', 'root on'],
    cannotRestore: 'it spawns a child from inline logic',
    paths: [
      {
        name: 'a friend added',
        steps: [{ send: { type: 'NEW_FRIEND.CHANGE', name: 'Ada' } }, { send: { type: 'FRIENDS.ADD', name: 'Ada' } }],
      },
    ],
  },
  {
    name: 'donut-maker',
    machine: donutMachine,
    origin: `${XSTATE} examples/persisted-donut-maker/donutMachine.ts, ${AT}`,
    licence: MIT,
    shapes: ['parallel regions', 'compound onDone'],
    paths: [
      {
        name: 'one donut, then another',
        steps: [
          { send: { type: 'NEXT' } },
          { send: { type: 'NEXT' } },
          { send: { type: 'MIXED_WET' } },
          { send: { type: 'MIXED_DRY' } },
          { send: { type: 'NEXT' } },
          { send: { type: 'NEXT' } },
          { send: { type: 'NEXT' } },
          { send: { type: 'NEXT' } },
          { send: { type: 'ANOTHER_DONUT' } },
        ],
      },
    ],
  },
  {
    name: 'tic-tac-toe',
    machine: ticTacToeMachine,
    origin: `${XSTATE} examples/tic-tac-toe-react/src/ticTacToeMachine.ts, ${AT}`,
    licence: MIT,
    shapes: ['always'],
    paths: [
      {
        name: 'x wins, a taken cell refused, then a draw',
        steps: [
          ...play(0, 3),
          { send: { type: 'PLAY', value: 3 }, refused: true },
          ...play(1, 4, 2),
          { send: { type: 'RESET' } },
          ...play(0, 1, 2, 4, 3, 5, 7, 6, 8),
          { send: { type: 'RESET' } },
        ],
      },
    ],
  },
  {
    name: 'shallow-history',
    machine: shallowHistory,
    origin: `${XSTATE} packages/core/test/history.test.ts ("should go to the shallow history"), ${AT}`,
    licence: MIT,
    shapes: ['shallow history', 'root on'],
    paths: [
      {
        name: 'back to the shallow history',
        steps: ['SWITCH', 'INNER', 'POWER', 'POWER'].map((type) => ({ send: { type } })),
      },
    ],
  },
  {
    name: 'deep-history',
    machine: deepHistory,
    origin: `${XSTATE} packages/core/test/history.test.ts ("should go to the deepest history"), ${AT}`,
    licence: MIT,
    shapes: ['deep history'],
    paths: [
      {
        name: 'back to the deepest history',
        steps: ['SWITCH', 'INNER', 'INNER', 'POWER', 'POWER'].map((type) => ({ send: { type } })),
      },
    ],
  },
  {
    name: 'parallel-history',
    machine: parallelHistory,
    origin: `${XSTATE} packages/core/test/history.test.ts ("should re-enter multiple history states"), ${AT}`,
    licence: MIT,
    shapes: ['parallel regions', 'shallow history', 'deep history'],
    paths: [
      {
        name: 'both regions back to their history',
        steps: ['SWITCH', 'INNER_A', 'INNER_A', 'INNER_K', 'INNER_K', 'POWER', 'PARALLEL_HISTORY'].map((type) => ({
          send: { type },
        })),
      },
    ],
  },
  {
    name: 'custom-guard',
    machine: customGuard,
    origin: `${XSTATE} packages/core/test/guards.test.ts ("should evaluate custom guards"), ${AT}`,
    licence: MIT,
    shapes: ['guard with params'],
    paths: [
      {
        name: 'refused below the bound, taken above it',
        steps: [{ send: { type: 'EVENT', value: 3 }, refused: true }, { send: { type: 'EVENT', value: 4 } }],
      },
    ],
  },
  {
    name: 'send-to-child',
    machine: someParentMachine,
    origin: `${XSTATE} packages/core/test/invoke.test.ts ("child can immediately respond to the parent with multiple events"), ${AT}`,
    licence: MIT,
    shapes: ['invoked machine', 'sendTo', 'sendParent', 'always'],
    paths: [{ name: 'the child answers three times', steps: [{ send: { type: 'FORWARD_DEC' }, until: finished }] }],
  },
  {
    name: 'spawn-referenced',
    machine: spawnReferenced,
    origin: `${XSTATE} packages/core/test/actor.test.ts ("should spawn referenced machines"), ${AT}`,
    licence: MIT,
    shapes: ['spawned by name', 'sendParent'],
    paths: [{ name: 'the child says DONE', started: finished, steps: [] }],
  },
  {
    name: 'spawned-reducer',
    machine: spawnedReducer,
    origin: `${XSTATE} packages/core/test/actorLogic.test.ts ("should persist a spawned actor with referenced src"), ${AT}`,
    licence: MIT,
    shapes: ['spawned by name'],
    paths: [{ name: 'spawned in the context factory', steps: [] }],
  },
  {
    name: 'finite-observable',
    machine: finiteObservable,
    origin: `${XSTATE} packages/core/test/invoke.test.ts ("should work with a finite observable"), ${AT}`,
    licence: MIT,
    shapes: ['invoked observable', 'onSnapshot'],
    paths: [{ name: 'counts to four', started: finished, steps: [] }],
  },
];

/** The machines statewright hosts as XState runs them (all but those it cannot restore). */
export const hostableMachines = foreignMachines.filter((entry) => entry.cannotRestore === undefined);
