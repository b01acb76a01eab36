import type { AnyStateMachine } from 'xstate';
import {
  boxesWithAnyState,
  type DiagramModel,
  type DiagramState,
  diagramModel,
  diagramStates,
  fromAnyStateWithin,
} from './diagram-edges.js';

const quote = (text: string) => `"${text.replace(/["\\]/g, '\\$&')}"`;

const isBox = (state: DiagramState) => state.children.length > 0;
const within = (path: string, ancestor: string) =>
  ancestor === '' || path === ancestor || path.startsWith(`${ancestor}.`);

/**
 * The node an arrow to or from a state is drawn at: the state's own node, or for a box (a DOT
 * cluster) the point inside it that stands for it: a compound's start dot, a parallel state's
 * invisible anchor. The machine's start dot is `__initial`.
 */
function nodeOf(state: DiagramState): string {
  if (state.path === '') return '__initial';
  if (!isBox(state)) return state.path;
  return state.kind === 'parallel' ? `__anchor:${state.path}` : `__initial:${state.path}`;
}

/** What drawing a box needs: every state by path, and the boxes that hold an "any state" mark. */
interface Drawing {
  readonly byPath: ReadonlyMap<string, DiagramState>;
  readonly anyState: ReadonlySet<string>;
}

const anyStateNode = (path: string) => `__any:${path}`;

function drawState(state: DiagramState, drawing: Drawing, lines: string[], indent: string) {
  if (isBox(state)) {
    lines.push(`${indent}subgraph ${quote(`cluster_${state.path}`)} {`);
    lines.push(
      `${indent}  label=${quote(state.key)}; style=${quote(state.kind === 'parallel' ? 'rounded,dashed' : 'rounded')};`,
    );
    drawInside(state, drawing, lines, `${indent}  `);
    lines.push(`${indent}}`);
    return;
  }
  const label = state.key === state.path ? [] : [`label=${quote(state.key)}`];
  const attributes =
    state.kind === 'final'
      ? ['shape=doublecircle', 'style=""', ...label]
      : state.kind === 'history'
        ? [
            'shape=circle',
            'style=""',
            'fixedsize=true',
            'width=0.4',
            `label=${quote(state.history === 'deep' ? 'H*' : 'H')}`,
          ]
        : label;
  lines.push(`${indent}${quote(state.path)}${attributes.length ? ` [${attributes.join(', ')}]` : ''};`);
}

/** A box's start dot (or anchor) with its arrow to the initial child, then its children. */
function drawInside(state: DiagramState, drawing: Drawing, lines: string[], indent: string) {
  if (state.kind === 'parallel')
    lines.push(`${indent}${quote(nodeOf(state))} [shape=point, style=invis, width=0.01, label=""];`);
  else
    lines.push(`${indent}${quote(nodeOf(state))} [shape=point, width=${state.path === '' ? 0.15 : 0.12}, label=""];`);
  if (drawing.anyState.has(state.path))
    lines.push(`${indent}${quote(anyStateNode(state.path))} [shape=plaintext, fontsize=10, label="any state"];`);
  const initial = state.initial === undefined ? undefined : drawing.byPath.get(state.initial);
  if (initial) {
    const head = isBox(initial) ? `, lhead=${quote(`cluster_${initial.path}`)}` : '';
    lines.push(`${indent}${quote(nodeOf(state))} -> ${quote(nodeOf(initial))}${head ? ` [${head.slice(2)}]` : ''};`);
  }
  for (const child of state.children) drawState(child, drawing, lines, indent);
}

/**
 * A Graphviz DOT graph of any machine, as a statechart: compound and parallel states are clusters
 * (a parallel one dashed) holding their children, each compound with its start dot; final states
 * double circles, history states H and H*; every arrow leaves the state that defines it (a
 * cluster's from its border, or from its "any state" mark for an arrow that stays inside it, as
 * the machine's own do) and enters the state it names (a cluster at its border).
 */
export function toDot(machine: AnyStateMachine): string {
  return dotOf(diagramModel(machine));
}

function dotOf(model: DiagramModel): string {
  const byPath = new Map(diagramStates(model).map((state) => [state.path, state]));
  byPath.set('', model.root);
  const drawing = { byPath, anyState: boxesWithAnyState(model, byPath) };
  const lines = [
    `digraph ${quote(model.id)} {`,
    '  rankdir=LR; compound=true;',
    ...(model.drawsRoot ? [] : [`  label=${quote(model.id)}; labelloc=t;`]),
    '  fontname="Helvetica";',
    '  node [shape=box, style="rounded", fontname="Helvetica"];',
    '  edge [fontname="Helvetica", fontsize=10];',
  ];
  if (model.drawsRoot) drawState(model.root, drawing, lines, '  ');
  else drawInside(model.root, drawing, lines, '  ');
  for (const transition of model.transitions) {
    const source = byPath.get(transition.source)!;
    const target = byPath.get(transition.target)!;
    const attributes = [`label=${quote(transition.labels.join(', '))}`];
    const inward = fromAnyStateWithin(source, target);
    const tail = inward ? anyStateNode(source.path) : nodeOf(source);
    const head = inward && target === source ? tail : nodeOf(target);
    // Clipped at a cluster's border.
    if (isBox(source) && !inward) attributes.push(`ltail=${quote(`cluster_${source.path}`)}`);
    if (isBox(target) && !within(source.path, target.path)) attributes.push(`lhead=${quote(`cluster_${target.path}`)}`);
    lines.push(`  ${quote(tail)} -> ${quote(head)} [${attributes.join(', ')}];`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
