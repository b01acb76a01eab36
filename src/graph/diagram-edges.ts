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

/**
 * A guard is drawn where it chooses between branches of one event (`agent.exited [exitedWithResult]`).
 * Where an event has a single branch its guard only refuses bad input (a metadata schema); the
 * transition table lists it, the picture leaves it out.
 */
export function diagramModel(machine: AnyStateMachine): DiagramModel {
  const rows = transitionTable(machine);
  const branches = new Map<string, number>();
  for (const row of rows)
    branches.set(`${row.source}\u0000${row.event}`, (branches.get(`${row.source}\u0000${row.event}`) ?? 0) + 1);
  const byPair = new Map<string, { source: string; target: string; labels: string[] }>();
  for (const row of rows) {
    const key = `${row.source}\u0000${row.target}`;
    const edge = byPair.get(key) ?? { source: row.source, target: row.target, labels: [] };
    const decides = row.guard && branches.get(`${row.source}\u0000${row.event}`)! > 1;
    const label = decides ? `${row.event} [${row.guard}]` : row.event;
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
