/**
 * `createRuntime({ actors })` takes actors by machine, then by name: two machines may name an actor
 * alike and each run gets its own machine's; actors nothing would run are refused with a message
 * that says what to give instead.
 */
import { assign, fromCallback, setup, type EventObject } from 'xstate';
import { describe, expect, it } from 'vitest';
import type { Lifecycle } from '../../machines/index.js';
import { ActorsOptionError, createRuntime, type ActorFactory } from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';

/** A machine whose `worker` actor says who it is; the same actor name in every machine made here. */
const reporting = (id: string) =>
  setup({
    types: { context: {} as { by: string | null }, events: {} as { type: 'DONE'; by: string } },
    actors: { worker: fromCallback<EventObject>(() => {}) },
  }).createMachine({
    id,
    initial: 'working',
    context: { by: null },
    states: {
      working: {
        invoke: { src: 'worker' },
        on: { DONE: { target: 'done', actions: assign({ by: ({ event }) => event.by }) } },
      },
      done: { type: 'final' },
    },
  });

const machines = {
  build: { machine: reporting('build'), version: 1, summary: 'builds' } satisfies Lifecycle,
  deploy: { machine: reporting('deploy'), version: 1, summary: 'deploys' } satisfies Lifecycle,
};
const says =
  (by: string): ActorFactory =>
  (run) =>
    fromCallback(() => run.send({ type: 'DONE', by }));

describe('actors by machine', () => {
  it('gives each run the actor of its own machine when two machines name one alike', async () => {
    const rt = await createRuntime({
      store: memoryStore(),
      machines,
      actors: { build: { worker: says('the builder') }, deploy: { worker: says('the deployer') } },
    });
    await rt.start('build', { id: 'b' });
    await rt.start('deploy', { id: 'd' });
    await rt.flush();
    expect([(await rt.getSnapshot('b')).context.by, (await rt.getSnapshot('d')).context.by]).toEqual([
      'the builder',
      'the deployer',
    ]);
    await rt.close();
  });

  it('leaves a machine given no actors with its placeholders', async () => {
    const rt = await createRuntime({
      store: memoryStore(),
      machines,
      actors: { build: { worker: says('the builder') } },
    });
    await rt.start('deploy', { id: 'd' });
    await rt.start('build', { id: 'b' });
    await rt.flush(); // the builder's report is committed: by then the deployer's placeholder has had its turn
    expect([(await rt.getSnapshot('b')).state, (await rt.getSnapshot('d')).state]).toEqual(['done', 'working']);
    await rt.close();
  });

  it('refuses actors for a machine it does not host, under a name the machine does not use, or given flat', async () => {
    const refusal = (actors: unknown) =>
      createRuntime({ store: memoryStore(), machines, actors: actors as never }).then(
        () => undefined,
        (e: Error) => e,
      );
    const unhosted = await refusal({ test: { worker: says('x') } });
    expect(unhosted).toBeInstanceOf(ActorsOptionError);
    expect(unhosted!.message).toBe(
      "Invalid createRuntime({ actors }): actors are given for machine 'test', which this runtime does not host (it hosts build, deploy). Give each machine the actors it names, e.g. actors: { session: { agent } }.",
    );
    expect((await refusal({ build: { agnet: says('x') } }))!.message).toContain(
      "machine 'build' names no actor 'agnet' (it names worker)",
    );
    expect((await refusal({ worker: says('x') }))!.message).toContain(
      "'worker' is a single actor factory, but actors are given per machine",
    );
    expect((await refusal({ build: { worker: 'x' } }))!.message).toContain(
      "actor 'worker' of 'build' must be a factory (run) => actor logic, not string",
    );
  });
});
