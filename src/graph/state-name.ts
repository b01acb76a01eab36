/** How tables, logs and the store name a state: small, so the runtime's step loads nothing more of the graph. */
import type { AnyMachineSnapshot, AnyStateNode } from 'xstate';
import { activeStateNodes } from './xstate-internals.js';

/** A state node's name: its path from the root, dotted ("work.check"). */
export function stateName(node: AnyStateNode): string {
  return node.path.join('.');
}

/** The state a snapshot rests in, as tables name it ("running", "work.check"; parallel regions' leaves joined by "|"). */
export function currentStateName(snapshot: AnyMachineSnapshot): string {
  // A string value is a top-level atomic or final state: its own name.
  if (typeof snapshot.value === 'string') return snapshot.value;
  return activeStateNodes(snapshot)
    .filter((n) => n.type === 'atomic' || n.type === 'final')
    .map(stateName)
    .join('|');
}
