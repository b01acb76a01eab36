/**
 * The actors `createRuntime({ actors })` is given, by machine then by actor name, and how a run's
 * machine gets them. Scoped by machine because two lifecycles may name different actors alike
 * (the session's and the codon's `agent`).
 */
import type { AnyActorLogic, AnyActorScope, AnyStateMachine } from 'xstate';
import type { Lifecycles } from '../../machines/lifecycle.js';
import { deadlineTimer } from './timers/deadline-timer.js';
import { ActorFactoryError, ActorsOptionError } from './errors.js';
import type { ActorFactory, MachineActors, RunHandle } from '../actor-contract/run-handle.js';

export type ActorsByMachine = ReadonlyMap<string, Readonly<Record<string, ActorFactory>>>;

/**
 * The actors of each hosted machine, `deadline` built in. Actors for a machine the registry lacks,
 * or named by no actor of its machine, are refused: they would never run, and nothing else would say so.
 */
export function machineActors(machines: Lifecycles, given: MachineActors): ActorsByMachine {
  for (const [machine, actors] of Object.entries(given)) {
    if (typeof actors === 'function')
      throw new ActorsOptionError(
        `'${machine}' is a single actor factory, but actors are given per machine: { <machine>: { ${machine}: ... } }`,
      );
    if (!Object.hasOwn(machines, machine))
      throw new ActorsOptionError(
        `actors are given for machine '${machine}', which this runtime does not host (it hosts ${Object.keys(machines).join(', ') || 'no machines'})`,
      );
    if (typeof actors !== 'object' || actors === null)
      throw new ActorsOptionError(
        `the actors of '${machine}' must be an object of actor factories by name, not ${String(actors)}`,
      );
    const named = Object.keys(machines[machine]!.machine.implementations.actors ?? {});
    for (const [name, factory] of Object.entries(actors)) {
      if (!named.includes(name))
        throw new ActorsOptionError(
          `machine '${machine}' names no actor '${name}' (it names ${named.join(', ') || 'none'})`,
        );
      if (typeof factory !== 'function')
        throw new ActorsOptionError(
          `actor '${name}' of '${machine}' must be a factory (run) => actor logic, not ${typeof factory}`,
        );
    }
  }
  return new Map(Object.keys(machines).map((machine) => [machine, { deadline: deadlineTimer, ...given[machine] }]));
}

/**
 * Which run an actor belongs to, found from its actor scope: every run's root actor is created with
 * its own `logger` (`runLogger`), which XState hands down to every actor of that run, as
 * `actorScope.logger`, before any of them is created or restored.
 */
const runOfLogger = new WeakMap<object, RunActors>();

/** The actor logic built for one run by each factory of its machine. */
type RunActors = ReadonlyMap<string, AnyActorLogic>;

/**
 * The `logger` a run's root actor is created with (XState's own default, `console.log`), through
 * which its actors find the logic built for it. Builds that logic now: a factory that throws is an
 * `ActorFactoryError` when the run is activated, not later when its actor is invoked.
 */
export function runLogger(
  machine: AnyStateMachine,
  factories: Readonly<Record<string, ActorFactory>>,
  handle: RunHandle,
): (...args: unknown[]) => void {
  const built = new Map<string, AnyActorLogic>();
  for (const name of Object.keys(machine.implementations.actors ?? {})) {
    if (!factories[name]) continue;
    try {
      built.set(name, factories[name](handle));
    } catch (error) {
      throw new ActorFactoryError(handle.runId, name, error);
    }
  }
  const logger = (...args: unknown[]) => console.log(...args);
  runOfLogger.set(logger, built);
  return logger;
}

/** The machines with their actors provided, built once per machine and factories: `provide` rebuilds the whole state-node tree. */
const provided = new WeakMap<AnyStateMachine, WeakMap<object, AnyStateMachine>>();

/**
 * The machine whose actors are the real ones (`factories`), for every run of it: each actor is
 * logic that does what the logic its factory built for the actor's run does (`runLogger` names the run).
 */
export function logicWithActors(
  machine: AnyStateMachine,
  factories: Readonly<Record<string, ActorFactory>>,
): AnyStateMachine {
  let byFactories = provided.get(machine);
  if (!byFactories) provided.set(machine, (byFactories = new WeakMap()));
  let logic = byFactories.get(factories);
  if (!logic) {
    const named = Object.keys(machine.implementations.actors ?? {}).filter((name) => factories[name]);
    logic = named.length
      ? machine.provide({ actors: Object.fromEntries(named.map((name) => [name, perRunLogic(name)])) })
      : machine;
    byFactories.set(factories, logic);
  }
  return logic;
}

/** Marks a snapshot with the logic that made it: `getPersistedSnapshot` is given no actor scope. Enumerable, so XState's `{ ...snapshot, status }` copies keep it. */
const madeBy = Symbol('statewright.logic');
/** The same, for a snapshot that takes no mark (frozen). */
const frozenMadeBy = new WeakMap<object, AnyActorLogic>();

function marked<T>(snapshot: T, logic: AnyActorLogic): T {
  if (typeof snapshot !== 'object' || snapshot === null) return snapshot;
  if (Object.isExtensible(snapshot)) (snapshot as Record<symbol, unknown>)[madeBy] = logic;
  else frozenMadeBy.set(snapshot, logic);
  return snapshot;
}

/** Actor logic `name` that runs, for each actor, the logic built for the actor's run. */
function perRunLogic(name: string): AnyActorLogic {
  const logicOf = (scope: AnyActorScope): AnyActorLogic => {
    const logic = runOfLogger.get(scope.logger)?.get(name);
    if (!logic)
      throw new Error(
        `Actor '${name}' (${scope.id}) belongs to no run a runtime activated: this machine's actors run only inside runs the runtime hosts. Create runs with runtime.start, not with createActor on the runtime's machine.`,
      );
    return logic;
  };
  return {
    config: undefined,
    transition: (snapshot, event, scope) => {
      const logic = logicOf(scope);
      return marked(logic.transition(snapshot, event, scope), logic);
    },
    getInitialSnapshot: (scope, input) => {
      const logic = logicOf(scope);
      return marked(logic.getInitialSnapshot(scope, input), logic);
    },
    restoreSnapshot: (persisted, scope) => {
      const logic = logicOf(scope);
      return marked(logic.restoreSnapshot ? logic.restoreSnapshot(persisted, scope) : persisted, logic);
    },
    start: (snapshot, scope) => logicOf(scope).start?.(snapshot, scope),
    getPersistedSnapshot: (snapshot, options) => {
      const logic =
        ((snapshot as Record<symbol, unknown>)[madeBy] as AnyActorLogic | undefined) ??
        frozenMadeBy.get(snapshot as object);
      if (!logic)
        throw new Error(
          `Actor '${name}' has a snapshot its run's logic did not make, so it cannot be persisted: a snapshot must come from the actor's own logic (its factory given to createRuntime({ actors })).`,
        );
      const persisted = logic.getPersistedSnapshot(snapshot, options);
      if (typeof persisted === 'object' && persisted !== null && madeBy in persisted) {
        const { [madeBy]: _mark, ...rest } = persisted as Record<string | symbol, unknown>;
        return rest;
      }
      return persisted;
    },
  } as AnyActorLogic;
}
