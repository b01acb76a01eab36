/**
 * The config a user writes in the packed-package tests: machines of their own (`article`, moved by
 * people; `deploy`, whose `ship` actor the config gives from a module of its own) and the built-in
 * session lifecycle edited (v2: a person reviews the work once Claude completes it), with or
 * without the migration that lets v1 sessions in.
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** lib/ship.ts beside the config: the `ship` actor, which writes shipped/<run id> beside the config once its step is committed. */
export const SHIP_MODULE = `import { mkdirSync, writeFileSync } from 'node:fs';
import type { ActorFactory } from 'statewright';
import { fromPromise } from 'xstate';

export const ship: ActorFactory = (run) =>
  fromPromise(
    () =>
      new Promise<void>((done) =>
        run.afterCommit(() => {
          const dir = new URL('../shipped/', import.meta.url);
          mkdirSync(dir, { recursive: true });
          writeFileSync(new URL(run.runId, dir), 'shipped\\n');
          done();
        }),
      ),
  );
`;

/** The user's config: a machine of their own, and the session lifecycle edited. */
const USER_CONFIG = `import { defineConfig, defineLifecycle, editMachine } from 'statewright';
import { sessionDefinition } from 'statewright/machines';
import { fromPromise, setup } from 'xstate';
import { ship } from './lib/ship';

const deploy = setup({
  types: { events: {} as { type: 'SHIP' } },
  actors: { ship: fromPromise<void>(async () => { throw new Error('ship is given by the config'); }) },
}).createMachine({
  id: 'deploy',
  initial: 'ready',
  states: {
    ready: { on: { SHIP: 'shipping' } },
    shipping: { invoke: { src: 'ship', onDone: 'shipped', onError: 'failed' } },
    shipped: { type: 'final' },
    failed: { type: 'final' },
  },
});

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
  actors: { deploy: { ship } },
  machines: [
    defineLifecycle({ name: 'deploy', machine: deploy, waitsFor: { ready: 'someone to SHIP it' } }),
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

/** Writes `config` as `name` in `dir` (default statewright.config.ts), with the module it imports. */
export function writeUserConfig(dir: string, config: string, name = 'statewright.config.ts'): void {
  mkdirSync(join(dir, 'lib'), { recursive: true });
  writeFileSync(join(dir, 'lib', 'ship.ts'), SHIP_MODULE);
  writeFileSync(join(dir, name), config);
}
