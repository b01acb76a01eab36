// Your own XState machine, hosted durably: the README's embedding example (run by
// test/examples/your-own-machine.test.ts, which holds the README's copy to this file).
// Run it with `npx tsx examples/your-own-machine.ts`; from the package, import from 'statewright'.
import { assign, setup } from 'xstate';
import { createRuntime, InvalidTransitionError, sqliteStore } from '../src/index.js';

// A plain XState machine: an article is written, reviewed, then published or sent back.
const article = setup({
  types: {
    context: {} as { title: string; rounds: number },
    input: {} as { title: string },
    events: {} as { type: 'SUBMIT' } | { type: 'APPROVE' } | { type: 'REQUEST_CHANGES' },
  },
}).createMachine({
  id: 'article',
  initial: 'draft',
  context: ({ input }) => ({ title: input.title, rounds: 0 }),
  states: {
    draft: { on: { SUBMIT: 'review' } },
    review: {
      on: {
        APPROVE: 'published',
        REQUEST_CHANGES: { target: 'draft', actions: assign({ rounds: ({ context }) => context.rounds + 1 }) },
      },
    },
    published: { type: 'final' },
  },
});

// Registered under a name, with the version its stored runs carry; the runs live in one SQLite file.
const store = sqliteStore('.statewright/articles.db');
const runtime = await createRuntime({
  store,
  machines: { article: { machine: article, version: 1, summary: 'an article, from draft to published' } },
});

const { runId } = await runtime.start('article', { input: { title: 'Durable statecharts' } });
await runtime.dispatch(runId, { type: 'SUBMIT' }, { actor: 'ana', reason: 'first draft' });
await runtime.dispatch(runId, { type: 'REQUEST_CHANGES' }, { actor: 'ben', reason: 'needs an example' });
await runtime.dispatch(runId, { type: 'SUBMIT' }, { actor: 'ana' });
try {
  await runtime.dispatch(runId, { type: 'SUBMIT' }); // 'review' does not take SUBMIT: refused, nothing changes
} catch (error) {
  if (error instanceof InvalidTransitionError) console.log(error.message);
}
const run = await runtime.dispatch(runId, { type: 'APPROVE' }, { actor: 'ben' }); // resolves once committed
console.log(`${run.state} (${run.status}) after ${run.context.rounds} round(s) of changes`);
for (const step of await runtime.history(runId)) {
  console.log(`${step.seq} ${step.event.type}: ${step.before} -> ${step.after} by ${step.actor ?? '?'}`); // the audit trail
}
await runtime.close();
await store.close();
