/**
 * The lifecycles a runtime hosts (`createRuntime({ machines })`) with the actors it was given for
 * them: each run's machine with its real actors, and its index keys after a step.
 */
import type { AnyStateMachine } from 'xstate';
import type { Lifecycle, Lifecycles } from '../../machines/lifecycle.js';
import type { MachineActors, RunHandle } from '../actor-contract/run-handle.js';
import { UnknownMachineError } from './errors.js';
import { indexKeys } from './index-keys.js';
import { logicWithActors, machineActors, runLogger, type ActorsByMachine } from './machine-actors.js';

export class HostedMachines {
  /** By machine, then by actor name: what `createRuntime({ actors })` gave, plus the built-in `deadline`. */
  readonly #actors: ActorsByMachine;

  /** Refuses actors given for a machine it does not host, or under a name its machine does not use (`ActorsOptionError`). */
  constructor(
    readonly all: Lifecycles,
    actors: MachineActors,
  ) {
    this.#actors = machineActors(all, actors);
  }

  lifecycle(machine: string): Lifecycle {
    const lifecycle = Object.hasOwn(this.all, machine) ? this.all[machine] : undefined;
    if (!lifecycle) throw new UnknownMachineError(machine, Object.keys(this.all));
    return lifecycle;
  }

  /** The run's machine, and the `logger` its root actor is created with, by which its actors find the logic built for the run. */
  logicFor(handle: RunHandle, machine: string): { logic: AnyStateMachine; logger: (...args: unknown[]) => void } {
    const base = this.lifecycle(machine).machine;
    const factories = this.#actors.get(machine)!;
    return { logger: runLogger(base, factories, handle), logic: logicWithActors(base, factories) };
  }

  /** The run's index keys after a step (`Lifecycle.indexes`), or undefined when it declares none. */
  indexKeys(
    machine: string,
    snapshot: { value: unknown; context: unknown; status: string },
  ): Record<string, number | null> | undefined {
    return indexKeys(this.lifecycle(machine), snapshot);
  }
}
