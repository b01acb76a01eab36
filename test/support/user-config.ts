/**
 * The config a user writes in the packed-package tests: a machine of their own (`article`) and the
 * built-in session lifecycle edited (v2: a person reviews the work once Claude completes it), with
 * or without the migration that lets v1 sessions in.
 */

/** The user's config: a machine of their own, and the session lifecycle edited. */
const USER_CONFIG = `import { defineConfig, defineLifecycle, editMachine } from 'statewright';
import { sessionDefinition } from 'statewright/machines';
import { setup } from 'xstate';

const article = setup({
  types: { events: {} as { type: 'SUBMIT' } | { type: 'APPROVE' } | { type: 'REJECT' } },
}).createMachine({
  id: 'article',
  initial: 'draft',
  states: {
    draft: { on: { SUBMIT: 'review' } },
    review: {
      on: { APPROVE: 'published', REJECT: { target: 'draft', meta: { unbounded: 'as often as the editor asks' } } },
    },
    published: { type: 'final' },
  },
});

/** A session whose work a person reviews once Claude completes it. */
const reviewedSession = editMachine(sessionDefinition.machine, (config) => ({
  ...config,
  states: {
    ...config.states,
    completed: { on: { REVIEWED: 'reviewed', REVIEW_FAILED: 'failed' } },
    reviewed: { type: 'final' },
  },
}));

export default defineConfig({
  store: 'sqlite:runs.db',
  machines: [
    defineLifecycle({
      name: 'article',
      machine: article,
      summary: 'an article from draft through review to published',
      waitsFor: {
        draft: 'its author',
        review: { summary: 'an editor', approve: { type: 'APPROVE' }, deny: { type: 'REJECT' } },
      },
    }),
    defineLifecycle({
      ...sessionDefinition,
      name: 'session',
      machine: reviewedSession,
      version: sessionDefinition.version + 1,
      MIGRATIONS
      waitsFor: {
        completed: { summary: 'a person to review the work', approve: { type: 'REVIEWED' }, deny: { type: 'REVIEW_FAILED' } },
      },
    }),
  ],
});
`;
export const withMigration = USER_CONFIG.replace(
  'MIGRATIONS',
  'migrations: { [sessionDefinition.version]: (snapshot: unknown) => snapshot },',
);
export const withoutMigration = USER_CONFIG.replace('MIGRATIONS\n', '');
