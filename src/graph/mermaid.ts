import type { AnyStateMachine } from 'xstate';
import type { ChartTransition } from './chart-transitions.js';
import {
  boxesWithAnyState,
  type DiagramModel,
  type DiagramState,
  diagramModel,
  diagramStates,
  fromAnyStateWithin,
} from './diagram-edges.js';

/** Mermaid ids may not contain dots or dashes; nested state names use both. The machine's own box is `__machine`. */
const mermaidId = (path: string) => (path === '' ? '__machine' : path.replace(/[^A-Za-z0-9_]/g, '_'));
/** The "any state" mark inside a box, which its arrows that stay inside it leave from. */
const anyStateId = (path: string) => `__any_${mermaidId(path)}`;

/** The path of the box an arrow between `a` and `b` is written in: their nearest common box, not a parallel one (its regions are sections). */
function containerOf(a: string, b: string, byPath: Map<string, DiagramState>): string {
  const parts = (path: string) => (path === '' ? [] : path.split('.'));
  const [x, y] = [parts(a).slice(0, -1), parts(b).slice(0, -1)];
  let common = 0;
  while (common < x.length && common < y.length && x[common] === y[common]) common++;
  let path = x.slice(0, common);
  while (path.length > 0 && byPath.get(path.join('.'))?.kind === 'parallel') path = path.slice(0, -1);
  return path.join('.');
}

/**
 * A Mermaid `stateDiagram-v2` of any machine, as a statechart: compound states as composite states
 * with their start, parallel states as composites whose regions are separated by `--`, history
 * states written H and H*, final states leading to an end, every transition from the state that
 * defines it (from a box's "any state" mark when it stays inside the box, as the machine's own
 * do), written in the nearest box holding both its ends. (Mermaid lays out an arrow
 * between states of two different composites less well than one within a composite.)
 */
export function toMermaid(machine: AnyStateMachine): string {
  return mermaidOf(diagramModel(machine));
}

function mermaidOf(model: DiagramModel): string {
  const byPath = new Map(diagramStates(model).map((state) => [state.path, state]));
  byPath.set('', model.root);
  const anyState = boxesWithAnyState(model, byPath);
  const arrowsIn = new Map<string, ChartTransition[]>();
  for (const transition of model.transitions) {
    const source = byPath.get(transition.source)!;
    // An arrow from a box's "any state" mark is written inside that box; the others in the nearest box holding both ends.
    const at = fromAnyStateWithin(source, byPath.get(transition.target)!)
      ? transition.source
      : containerOf(transition.source, transition.target, byPath);
    arrowsIn.set(at, [...(arrowsIn.get(at) ?? []), transition]);
  }
  const lines = ['---', `title: ${model.id}`, '---', 'stateDiagram-v2'];
  for (const state of byPath.values()) {
    if (state.path === '' && !model.drawsRoot) continue;
    const label = state.kind === 'history' ? (state.history === 'deep' ? 'H*' : 'H') : state.key;
    if (mermaidId(state.path) !== label) lines.push(`  state "${label}" as ${mermaidId(state.path)}`);
    if (anyState.has(state.path)) lines.push(`  state "any state" as ${anyStateId(state.path)}`);
  }
  const arrow = (transition: ChartTransition, indent: string) => {
    const source = byPath.get(transition.source)!;
    const inward = fromAnyStateWithin(source, byPath.get(transition.target)!);
    const tail = inward ? anyStateId(transition.source) : mermaidId(transition.source);
    const head = inward && transition.target === transition.source ? tail : mermaidId(transition.target);
    return `${indent}${tail} --> ${head} : ${transition.labels.join(', ')}`;
  };
  const drawBody = (state: DiagramState, indent: string) => {
    if (state.kind === 'parallel') {
      state.children.forEach((region, i) => {
        if (i > 0) lines.push(`${indent}--`);
        drawBox(region, indent);
      });
    } else {
      if (state.initial !== undefined) lines.push(`${indent}[*] --> ${mermaidId(state.initial)}`);
      if (anyState.has(state.path)) lines.push(`${indent}${anyStateId(state.path)}`);
      for (const child of state.children) drawBox(child, indent);
    }
    for (const transition of arrowsIn.get(state.path) ?? []) lines.push(arrow(transition, indent));
  };
  const drawBox = (state: DiagramState, indent: string) => {
    if (state.children.length > 0) {
      lines.push(`${indent}state ${mermaidId(state.path)} {`);
      drawBody(state, `${indent}  `);
      lines.push(`${indent}}`);
    } else if (state.kind === 'final') lines.push(`${indent}${mermaidId(state.path)} --> [*]`);
    else lines.push(`${indent}${mermaidId(state.path)}`);
  };
  if (model.drawsRoot) {
    lines.push(`  [*] --> ${mermaidId('')}`);
    drawBox(model.root, '  ');
    // A machine with no states of its own is one state: its arrows loop on it.
    if (model.root.children.length === 0)
      for (const transition of arrowsIn.get('') ?? []) lines.push(arrow(transition, '  '));
  } else drawBody(model.root, '  ');
  return `${lines.join('\n')}\n`;
}
