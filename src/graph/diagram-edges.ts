import type { AnyStateMachine } from 'xstate';
import { type ChartTransition, chartTransitions, drawsRoot } from './chart-transitions.js';
import { type FoldedTransition, foldQuiet, type QuietEvent } from './quiet-events.js';
import { type Statechart, statechart } from './statechart.js';

/** A state as a diagram draws it: a box, or a box of its children (a compound's with its start). */
export interface DiagramState {
  /** Its path below the root, dotted (`stateName`); `''` for the machine itself. */
  readonly path: string;
  /** Its own key, the name written on it (the machine's id for the machine itself). */
  readonly key: string;
  readonly kind: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  /** `shallow` or `deep`, for a history state. */
  readonly history?: 'shallow' | 'deep';
  /** The path of the child a compound state starts in. */
  readonly initial?: string;
  readonly children: readonly DiagramState[];
}

/** The drawable shape of any machine: its states as a tree, and every transition as an arrow from the state that defines it. */
export interface DiagramModel {
  readonly id: string;
  /**
   * The machine itself (path `''`): the outer box when `drawsRoot`, else only the holder of the
   * top-level states and the start.
   */
  readonly root: DiagramState;
  /** The root is drawn as a box: its own transitions leave it (`on` or `after` at the top), or it is parallel. */
  readonly drawsRoot: boolean;
  /** Transitions between the same two states share one arrow with their labels listed (`chartTransitions`). */
  readonly transitions: readonly FoldedTransition[];
}

export interface DiagramOptions {
  /** The events drawn quietly, folded into one line per arrow (`quiet-events.ts`); none by default. */
  readonly quiet?: QuietEvent;
}

function diagramState(chart: Statechart, path: string, key: string): DiagramState {
  const state = chart.states.get(path)!;
  return {
    path,
    key,
    kind: state.kind,
    ...(state.history && { history: state.history }),
    ...(state.initial !== undefined && { initial: state.initial }),
    children: state.children.map((child) => diagramState(chart, child, chart.states.get(child)!.key)),
  };
}

/**
 * The statechart every diagram draws (DOT and Mermaid here; the view's SVG lays out the same
 * states and `chartTransitions`): compound and parallel states hold their children, and each arrow
 * leaves the state that defines it, the root's and `always` included. A guard is written where it
 * chooses between branches of one event; the one-step table (`transitionTable`) lists every guard.
 */
export function diagramModel(machine: AnyStateMachine, options: DiagramOptions = {}): DiagramModel {
  const transitions: ChartTransition[] = chartTransitions(machine);
  const { quiet } = options;
  return {
    id: machine.id,
    root: diagramState(statechart(machine), '', machine.id),
    drawsRoot: drawsRoot(machine, transitions),
    transitions: quiet ? transitions.map((transition) => foldQuiet(transition, quiet)) : transitions,
  };
}

/** Every state of the model below the root, depth first. */
export function diagramStates(model: DiagramModel): DiagramState[] {
  const all: DiagramState[] = [];
  const visit = (state: DiagramState) => {
    for (const child of state.children) {
      all.push(child);
      visit(child);
    }
  };
  visit(model.root);
  return all;
}

/**
 * Whether an arrow from a box stays within it (to the box itself or a state inside): a diagram
 * that cannot draw an arrow from a box's border inward draws it from the box's "any state" mark,
 * for that is what it says: from whichever state inside the box the run is in.
 */
export function fromAnyStateWithin(source: DiagramState, target: DiagramState): boolean {
  return (
    source.children.length > 0 &&
    (source.path === '' || target.path === source.path || target.path.startsWith(`${source.path}.`))
  );
}

/** The boxes some arrow leaves from their "any state" mark (`fromAnyStateWithin`), by path. */
export function boxesWithAnyState(model: DiagramModel, byPath: ReadonlyMap<string, DiagramState>): Set<string> {
  return new Set(
    model.transitions
      .filter((transition) => fromAnyStateWithin(byPath.get(transition.source)!, byPath.get(transition.target)!))
      .map((transition) => transition.source),
  );
}
