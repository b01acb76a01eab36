/**
 * Origin: statewright issue 39 ("a 3-state machine `draft -SUBMIT-> checks (parallel) -> done` fails with 9
 * violations"), written from the issue's words for this corpus: the smallest machine whose only path runs
 * through a parallel state left by its `onDone`. Licence: this project's.
 */
import { setup } from 'xstate';

export const issueChecks = setup({
  types: { events: {} as { type: 'SUBMIT' } | { type: 'BUDGET_OK' } | { type: 'LEGAL_OK' } },
}).createMachine({
  id: 'expense',
  initial: 'draft',
  states: {
    draft: { on: { SUBMIT: 'checks' } },
    checks: {
      type: 'parallel',
      states: {
        budget: {
          initial: 'pending',
          states: { pending: { on: { BUDGET_OK: 'approved' } }, approved: { type: 'final' } },
        },
        legal: {
          initial: 'pending',
          states: { pending: { on: { LEGAL_OK: 'approved' } }, approved: { type: 'final' } },
        },
      },
      onDone: 'done',
    },
    done: { type: 'final' },
  },
});
