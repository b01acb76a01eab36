import { StateMachine, type AnyStateMachine } from 'xstate';
import { leafStates, stateName, transitionTable } from '../../src/graph/index.js';

/**
 * A copy of `machine` with one transition redirected to a different state: the first unguarded
 * edge of the table now leads to the first other leaf state. Used to prove the harness can fail.
 */
export function mutateOneTransition(machine: AnyStateMachine): {
  mutant: AnyStateMachine;
  source: string;
  event: string;
  from: string;
  to: string;
} {
  const row = transitionTable(machine).find((r) => !r.internal && !r.guard) ?? transitionTable(machine)[0]!;
  const to = leafStates(machine)
    .map(stateName)
    .find((s) => s !== row.target && s !== row.source)!;
  const config = structuredCloneConfig(machine.config);
  let node: any = config;
  for (const key of row.source.split('.')) node = node.states[key];
  node.on = { ...node.on, [row.event]: `#${machine.id}.${to}` };
  const mutant = new StateMachine(config, machine.implementations as any) as unknown as AnyStateMachine;
  return { mutant, source: row.source, event: row.event, from: row.target, to };
}

/** Copies the plain-object spine of a config, keeping functions (actions, guards) as they are. */
function structuredCloneConfig<T>(value: T): T {
  if (Array.isArray(value)) return value.map(structuredCloneConfig) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, structuredCloneConfig(v)])) as T;
  }
  return value;
}
