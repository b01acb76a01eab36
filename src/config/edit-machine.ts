/**
 * `editMachine`: a machine made from another one's definition, changed. How a built-in lifecycle is
 * edited without forking the package: the edited config is built with the same implementations
 * (guards, actions, actors, delays), so only what the edit names changes.
 */
import { createMachine, type AnyStateMachine } from 'xstate';

/** The machine's config as `edit` receives it: its states (and anything else) to spread and change. */
export type MachineDefinition = AnyStateMachine['config'];

/**
 * Returns a machine whose config is `edit(machine.config)` and whose implementations are
 * `machine`'s. It keeps `machine`'s type: an event or state the edit adds is checked at run time
 * (and by `statewright check`), not by TypeScript.
 */
export function editMachine<M extends AnyStateMachine>(
  machine: M,
  edit: (config: MachineDefinition) => MachineDefinition,
): M {
  // The implementations are the very ones `machine` was built with: their types are its, not the edited config's.
  return createMachine(edit(machine.config), machine.implementations as never) as unknown as M;
}
