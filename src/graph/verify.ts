import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { leafStates, stateName, transitionTable } from './transition-table.js';

/** What is structurally wrong with a machine, if anything. Every list empty means sound. */
export interface VerificationReport {
  readonly machine: string;
  /** States no sequence of events reaches from the initial state. */
  readonly unreachable: string[];
  /** Non-final states with no transition to any other state: a run would be stuck there. */
  readonly deadEnds: string[];
  /** Final states that still declare transitions: a finished run could move again. */
  readonly finalWithExits: string[];
  readonly ok: boolean;
}

function initialLeaf(node: AnyStateNode): AnyStateNode {
  const initial = node.initial?.target[0];
  return initial ? initialLeaf(initial) : node;
}

export function verifyMachine(machine: AnyStateMachine): VerificationReport {
  const rows = transitionTable(machine);
  const leaves = leafStates(machine);
  const names = leaves.map(stateName);
  const exits = new Map<string, Set<string>>(names.map((n) => [n, new Set()]));
  for (const row of rows) exits.get(row.source)!.add(row.target);

  const reached = new Set<string>();
  const frontier = [stateName(initialLeaf(machine.root))];
  for (let state = frontier.pop(); state !== undefined; state = frontier.pop()) {
    if (reached.has(state)) continue;
    reached.add(state);
    for (const target of exits.get(state) ?? []) frontier.push(target);
  }

  const unreachable = names.filter((n) => !reached.has(n));
  const deadEnds = leaves
    .filter((n) => n.type !== 'final' && ![...exits.get(stateName(n))!].some((t) => t !== stateName(n)))
    .map(stateName);
  const finalWithExits = leaves.filter((n) => n.type === 'final' && exits.get(stateName(n))!.size > 0).map(stateName);
  return {
    machine: machine.id,
    unreachable,
    deadEnds,
    finalWithExits,
    ok: unreachable.length + deadEnds.length + finalWithExits.length === 0,
  };
}
