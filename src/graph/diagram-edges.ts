import type { AnyStateMachine } from 'xstate';
import { finalStateNames, leafStates, stateName, transitionTable } from './transition-table.js';

/** The drawable shape of a machine: its states, where it starts, and one labelled edge per pair. */
export interface DiagramModel {
  readonly id: string;
  readonly initial: string;
  readonly states: readonly string[];
  readonly finals: ReadonlySet<string>;
  /** Edges between the same two states share one arrow with the event labels joined. */
  readonly edges: ReadonlyArray<{ source: string; target: string; label: string }>;
}

export function diagramModel(machine: AnyStateMachine): DiagramModel {
  const byPair = new Map<string, { source: string; target: string; labels: string[] }>();
  for (const row of transitionTable(machine)) {
    const key = `${row.source}\u0000${row.target}`;
    const edge = byPair.get(key) ?? { source: row.source, target: row.target, labels: [] };
    const label = row.guard ? `${row.event} [${row.guard}]` : row.event;
    if (!edge.labels.includes(label)) edge.labels.push(label);
    byPair.set(key, edge);
  }
  let initial = machine.root;
  while (initial.initial?.target[0]) initial = initial.initial.target[0];
  return {
    id: machine.id,
    initial: stateName(initial),
    states: leafStates(machine).map(stateName),
    finals: new Set(finalStateNames(machine)),
    edges: [...byPair.values()].map(({ source, target, labels }) => ({ source, target, label: labels.join(', ') })),
  };
}
