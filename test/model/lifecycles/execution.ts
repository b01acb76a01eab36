import type { LifecycleModel } from './model.js';

/** ../shared/seeds/kici-execution-state-machine.txt, "Transition table", row for row. */
export const executionModel: LifecycleModel = {
  seedTable: [
    ['pending', 'ENQUEUE', 'queued'],
    ['pending', 'CANCEL', 'cancelled'],
    ['pending', 'SKIP', 'skipped'],
    ['pending', 'HOLD', 'held'],
    ['pending', 'WAIT', 'waiting'],
    ['held', 'APPROVE', 'queued'],
    ['held', 'REJECT', 'cancelled'],
    ['held', 'EXPIRE', 'cancelled'],
    ['held', 'CANCEL', 'cancelled'],
    ['waiting', 'TIMER_DONE', 'queued'],
    ['waiting', 'CANCEL', 'cancelled'],
    ['queued', 'START', 'running'],
    ['queued', 'FAIL', 'failed'],
    ['queued', 'CANCEL', 'cancelled'],
    ['running', 'SUCCEED', 'success'],
    ['running', 'FAIL', 'failed'],
    ['running', 'CANCEL', 'cancelled'],
    ['running', 'CANCEL_GRACEFUL', 'cancelling'],
    ['running', 'RECOVER', 'recovering'],
    ['cancelling', 'CANCEL_FORCE', 'cancelled'],
    ['cancelling', 'COMPLETE', 'cancelled'],
    ['cancelling', 'FAIL', 'failed'],
    ['recovering', 'START', 'running'],
    ['recovering', 'FAIL', 'failed'],
    ['recovering', 'CANCEL', 'cancelled'],
  ],
};
