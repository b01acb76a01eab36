/**
 * The children a machine spawns from inline logic where that can be seen in its definition: a
 * `spawnChild(childMachine)` action in a state's entry or exit or on a transition. Such a child can
 * be neither stored nor restored (XState keeps its logic object in the snapshot and cannot revive
 * it), so the runtime refuses the step that spawns one. A `spawn(childMachine)` inside an `assign`
 * or the context factory is code, not definition: only the runtime's refusal finds it. An inline
 * `invoke` is fine: XState names its logic itself.
 */
import type { Statechart } from './statechart.js';
import { spawnedLogic } from './xstate-internals.js';

export interface InlineSpawn {
  /** The state whose entry, exit or transition spawns it ('' for the root). */
  readonly state: string;
  /** The child's id, when the action gives one. */
  readonly id?: string;
  /** Where: "entry", "exit", or the transition's label ("on ADD"). */
  readonly where: string;
}

export function inlineSpawns(model: Statechart): InlineSpawn[] {
  const found: InlineSpawn[] = [];
  const look = (state: string, where: string, actions: readonly unknown[]) => {
    for (const action of actions) {
      const spawned = spawnedLogic(action);
      if (spawned && typeof spawned.src !== 'string')
        found.push({ state, where, ...(spawned.id !== undefined && { id: spawned.id }) });
    }
  };
  for (const { path, node } of model.states.values()) {
    look(path, 'entry', node.entry);
    look(path, 'exit', node.exit);
  }
  for (const t of model.transitions) look(t.source, `on ${t.label}`, t.definition.actions);
  return found;
}
