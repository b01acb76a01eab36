/**
 * The runtime's machine names, events and inputs are typed from the lifecycles it hosts
 * (`createRuntime({ machines })`, `registryOf(config).machines`): a misspelled machine or event does
 * not compile. Checked by the typecheck (`tsc`): each `@ts-expect-error` line must be an error, or
 * the typecheck fails. The runtime assertions run one typed runtime for real.
 */
import { createMachine, setup } from 'xstate';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { lifecycles } from '../../machines/index.js';
import { defineConfig, defineLifecycle, registryOf, type Registry } from '../../src/config/index.js';
import {
  createRuntime,
  UnknownMachineError,
  type EventOf,
  type InputOf,
  type MachineName,
  type Runtime,
} from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';
import { sessionLifecycle } from '../../src/session/index.js';
import { codonLifecycle } from '../../src/codon/index.js';
import { reviewLoopLifecycle } from '../../src/review-loop/index.js';
import { taskLifecycle } from '../../src/task/index.js';
import type { ActorFactory } from '../../src/actor-contract/run-handle.js';

const articleMachine = setup({
  types: {
    input: {} as { title: string },
    events: {} as { type: 'SUBMIT' } | { type: 'APPROVE' },
  },
}).createMachine({
  id: 'article',
  initial: 'draft',
  states: {
    draft: { on: { SUBMIT: 'review' } },
    review: { on: { APPROVE: 'published' } },
    published: { type: 'final' },
  },
});
const article = defineLifecycle({ name: 'article', machine: articleMachine });

/** No `types`: its events are `{ type: string }`. */
const untypedMachine = createMachine({ id: 'loose', initial: 'a', states: { a: { on: { GO: 'b' } }, b: {} } });
const loose = defineLifecycle({ name: 'loose', machine: untypedMachine });

const config = defineConfig({ machines: [article] });
const onlyArticles = defineConfig({ machines: [article], builtins: false });
const stubActor: ActorFactory = () => untypedMachine;

/** Never called: the typecheck reads it. */
async function compileOnly(): Promise<void> {
  const store = memoryStore();

  // A runtime on its own lifecycles: only their names, events and inputs.
  const own = await createRuntime({ store, machines: { article } });
  await own.start('article', { input: { title: 'Typed' } });
  // @ts-expect-error a misspelled machine
  await own.start('articel');
  // @ts-expect-error the input of another shape
  await own.start('article', { input: { name: 'Typed' } });
  await own.dispatch('run-1', { type: 'SUBMIT' });
  own.send('run-1', { type: 'APPROVE' }, { actor: 'ben' });
  // @ts-expect-error a misspelled event
  await own.dispatch('run-1', { type: 'APROVE' });
  // @ts-expect-error a misspelled event, fire and forget
  own.send('run-1', { type: 'SUMBIT' });
  await own.listByIndex('article', 'any');
  // @ts-expect-error a machine the runtime does not host
  await own.listByIndex('session', 'active');

  // The built-ins with the config's (registryOf): built-in names and events, their payloads, `at` stamped by the runtime.
  const registry = registryOf(config);
  const merged = await createRuntime({ store, machines: registry.machines });
  await merged.start('session', { input: { query: 'hello', created_at: 0, log_path: '/tmp/s.log' } });
  await merged.start('article', { input: { title: 'Typed' } });
  await merged.dispatch('run-1', { type: 'INTERRUPT', reason: 'stop' });
  await merged.dispatch('run-1', { type: 'ENQUEUE' });
  await merged.dispatch('run-1', { type: 'SUBMIT' });
  // @ts-expect-error a misspelled machine
  await merged.start('sesion');
  // @ts-expect-error a misspelled event
  await merged.dispatch('run-1', { type: 'INTERUPT' });
  // @ts-expect-error a built-in event with a payload of the wrong type
  await merged.dispatch('run-1', { type: 'INTERRUPT', reason: 42 });

  // `builtins: false`: the config's machines only.
  const articlesOnly = await createRuntime({ store, machines: registryOf(onlyArticles).machines });
  await articlesOnly.start('article');
  // @ts-expect-error the built-ins are not hosted
  await articlesOnly.start('session');

  // One untyped machine: its events are any `{ type: string }`, and the others' still type-check.
  const mixed = await createRuntime({ store, machines: { article, loose } });
  await mixed.dispatch('run-1', { type: 'GO' });
  await mixed.dispatch('run-1', { type: 'SUBMIT' });
  await mixed.start('loose', { input: { anything: true } });
  // @ts-expect-error a misspelled machine, still
  await mixed.start('lose');

  // A precisely typed runtime is a `Runtime`: what the services attach to, what takes a name in a string.
  const services = [
    sessionLifecycle({ logDir: '/tmp' }),
    codonLifecycle(),
    reviewLoopLifecycle(),
    taskLifecycle({ dir: '/tmp' }),
  ];
  for (const service of services) await service.attach(merged);
  const anyName: string = 'article';
  const asLoose: Runtime = own;
  await asLoose.start(anyName);
  await asLoose.dispatch('run-1', { type: anyName, note: 'anything' });

  // The config's actors are keyed by the machines it hosts.
  defineConfig({ machines: [article], actors: { article: { agent: stubActor }, session: { agent: stubActor } } });
  defineConfig({ machines: [article], actors: sessionLifecycle({ logDir: '/tmp' }).actors });
  // @ts-expect-error a misspelled machine in actors
  defineConfig({ machines: [article], actors: { articel: { agent: stubActor } } });
  // @ts-expect-error a built-in's actors where the built-ins are not hosted
  defineConfig({ machines: [article], builtins: false, actors: { session: { agent: stubActor } } });
}

describe('types tied to the registry', () => {
  it('types names, events and inputs from the lifecycles, and stays loose without them', () => {
    expectTypeOf<MachineName<{ article: typeof article }>>().toEqualTypeOf<'article'>();
    expectTypeOf<EventOf<{ article: typeof article }>>().toEqualTypeOf<{ type: 'SUBMIT' } | { type: 'APPROVE' }>();
    expectTypeOf<InputOf<typeof article>>().toEqualTypeOf<{ title: string }>();
    expectTypeOf<EventOf<{ loose: typeof loose }>>().toEqualTypeOf<{ type: string }>();
    expectTypeOf<EventOf<{ article: typeof article; loose: typeof loose }>>().toEqualTypeOf<{ type: string }>();
    // The default, as loose as before: any name, any `{ type: string }`, any input.
    expectTypeOf<Runtime['start']>().parameter(0).toEqualTypeOf<string>();
    expectTypeOf<EventOf<Registry['machines']>>().toEqualTypeOf<{ type: string }>();
    expectTypeOf<InputOf<Registry['machines'][string]>>().toEqualTypeOf<unknown>();
    // The built-ins' names with the config's.
    type Merged = MachineName<ReturnType<typeof registryOf<readonly [typeof article], true>>['machines']>;
    expectTypeOf<Merged>().toExtend<keyof typeof lifecycles | 'article'>();
    expectTypeOf<keyof typeof lifecycles | 'article'>().toExtend<Merged>();
    expectTypeOf<Runtime<typeof lifecycles>>().toExtend<Runtime>();
    expect(compileOnly).toBeTypeOf('function');
  });

  it('hosts a config-defined machine under its typed name', async () => {
    const store = memoryStore();
    const runtime = await createRuntime({ store, machines: registryOf(config).machines, recover: false });
    const { runId } = await runtime.start('article', { input: { title: 'Typed' } });
    await runtime.dispatch(runId, { type: 'SUBMIT' });
    const published = await runtime.dispatch(runId, { type: 'APPROVE' });
    expect(published).toMatchObject({ machine: 'article', state: 'published', status: 'done' });
    // The types are a help: the runtime still checks a name that gets past them.
    await expect(runtime.start('articel' as 'article')).rejects.toBeInstanceOf(UnknownMachineError);
    await runtime.close();
    await store.close();
  });
});
