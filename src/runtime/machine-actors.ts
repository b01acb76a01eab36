/**
 * The actors `createRuntime({ actors })` is given, by machine then by actor name, and how a run's
 * machine gets them. Scoped by machine because two lifecycles may name different actors alike
 * (the session's and the codon's `agent`).
 */
import type { AnyStateMachine } from 'xstate';
import type { Lifecycles } from '../../machines/lifecycle.js';
import { deadlineTimer } from '../actors/deadline-timer.js';
import { ActorFactoryError, ActorsOptionError } from './errors.js';
import type { ActorFactory, MachineActors, RunHandle } from './run-handle.js';

export type ActorsByMachine = ReadonlyMap<string, Readonly<Record<string, ActorFactory>>>;

/**
 * The actors of each hosted machine, `deadline` built in. Actors for a machine the registry lacks,
 * or named by no actor of its machine, are refused: they would never run, and nothing else would say so.
 */
export function machineActors(machines: Lifecycles, given: MachineActors): ActorsByMachine {
  for (const [machine, actors] of Object.entries(given)) {
    if (typeof actors === 'function') throw new ActorsOptionError(`'${machine}' is a single actor factory, but actors are given per machine: { <machine>: { ${machine}: ... } }`);
    if (!Object.hasOwn(machines, machine)) throw new ActorsOptionError(`actors are given for machine '${machine}', which this runtime does not host (it hosts ${Object.keys(machines).join(', ') || 'no machines'})`);
    if (typeof actors !== 'object' || actors === null) throw new ActorsOptionError(`the actors of '${machine}' must be an object of actor factories by name, not ${String(actors)}`);
    const named = Object.keys(machines[machine]!.machine.implementations.actors ?? {});
    for (const [name, factory] of Object.entries(actors)) {
      if (!named.includes(name)) throw new ActorsOptionError(`machine '${machine}' names no actor '${name}' (it names ${named.join(', ') || 'none'})`);
      if (typeof factory !== 'function') throw new ActorsOptionError(`actor '${name}' of '${machine}' must be a factory (run) => actor logic, not ${typeof factory}`);
    }
  }
  return new Map(Object.keys(machines).map((machine) => [machine, { deadline: deadlineTimer, ...given[machine] }]));
}

/** The machine with the real actors built for one run; building one that throws is an `ActorFactoryError`. */
export function logicWithActors(machine: AnyStateMachine, factories: Readonly<Record<string, ActorFactory>>, handle: RunHandle): AnyStateMachine {
  const build = (name: string) => {
    try {
      return factories[name]!(handle);
    } catch (error) {
      throw new ActorFactoryError(handle.runId, name, error);
    }
  };
  const named = Object.keys(machine.implementations.actors ?? {});
  const provided = Object.fromEntries(named.filter((name) => factories[name]).map((name) => [name, build(name)]));
  return Object.keys(provided).length ? machine.provide({ actors: provided }) : machine;
}
