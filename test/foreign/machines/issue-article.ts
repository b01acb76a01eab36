/**
 * Origin: statewright issue 39 ("an ordinary `draft -> review -> published` article with a REJECT back to
 * draft"), as a user's statewright.config.ts writes it in this project's packed-package tests
 * (test/support/user-config.ts), without the `meta` that silences `check`'s lint there. Licence: this project's.
 */
import { setup } from 'xstate';

export const issueArticle = setup({
  types: { events: {} as { type: 'SUBMIT' } | { type: 'APPROVE' } | { type: 'REJECT' } },
}).createMachine({
  id: 'article',
  initial: 'draft',
  states: {
    draft: { on: { SUBMIT: 'review' } },
    review: { on: { APPROVE: 'published', REJECT: 'draft' } },
    published: { type: 'final' },
  },
});
