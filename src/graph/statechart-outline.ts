import type { AnyStateMachine } from 'xstate';
import { type DiagramOptions, type DiagramState, diagramModel } from './diagram-edges.js';
import {
  FONT_SIZE,
  HEADER,
  LABEL_FONT_SIZE,
  type LaidEdge,
  type LaidState,
  labelLines,
  type StatechartLayout,
  textWidth,
} from './statechart-layout.js';

const GAP = 12;
const PAD = 14;
const MARGIN = 16;
/** The room between two arrows' vertical runs, right of the states. */
const LANE = 14;
const HISTORY = 28;

/** Places `node` at (x, y): a leaf as a box, a compound or parallel state as a box of its children stacked below its name. */
function placeNode(state: DiagramState, x: number, y: number): LaidState {
  const { path, key, kind } = state;
  if (kind === 'history') {
    return {
      path,
      key,
      kind,
      history: state.history ?? 'shallow',
      x,
      y,
      width: HISTORY,
      height: HISTORY,
      children: [],
    };
  }
  const nodes = state.children;
  const nameWidth = textWidth(key, FONT_SIZE) + 24;
  if (nodes.length === 0) return { path, key, kind, x, y, width: Math.max(nameWidth, 72), height: 36, children: [] };
  const children: LaidState[] = [];
  let below = y + HEADER + GAP;
  for (const child of nodes) {
    const placed = placeNode(child, x + PAD, below);
    children.push(placed);
    below = placed.y + placed.height + GAP;
  }
  const width = Math.max(nameWidth + 16, ...children.map((child) => child.x + child.width - x + PAD));
  return { path, key, kind, x, y, width, height: below - y + PAD - GAP, children };
}

/**
 * A statechart laid out without ELK, for a machine ELK cannot lay out: the states stacked as an
 * outline (each compound or parallel state a box of its children), every transition an arrow that
 * leaves its source's right side, runs down or up its own lane right of the states, and enters its
 * target's right side, labelled beside its lane. Plain arithmetic over the state tree: it cannot
 * fail, so the view always has a chart to mark runs on.
 */
export function outlineLayout(machine: AnyStateMachine, options: DiagramOptions = {}): StatechartLayout {
  const { root, drawsRoot: rootBox, transitions } = diagramModel(machine, options);
  const states: LaidState[] = [];
  if (rootBox) states.push(placeNode(root, MARGIN, MARGIN));
  else {
    let below = MARGIN;
    for (const child of root.children) {
      const placed = placeNode(child, MARGIN, below);
      states.push(placed);
      below = placed.y + placed.height + GAP;
    }
  }
  const byPath = new Map<string, LaidState>();
  const index = (state: LaidState) => {
    byPath.set(state.path, state);
    state.children.forEach(index);
  };
  states.forEach(index);
  const right = Math.max(MARGIN, ...states.map((state) => state.x + state.width));
  const bottom = Math.max(MARGIN, ...states.map((state) => state.y + state.height));
  let widest = right;
  const edges: LaidEdge[] = transitions.map((transition, i) => {
    const from = byPath.get(transition.source)!;
    const to = byPath.get(transition.target)!;
    const lane = right + LANE * (i + 1);
    // A box's right side, a little below its top: the name's row of a compound, the middle of a leaf.
    const side = (state: LaidState) => ({
      x: state.x + state.width,
      y: state.y + Math.min(state.height / 2, HEADER / 2),
    });
    const start = side(from);
    const loop = transition.source === transition.target;
    const end = loop ? { x: start.x, y: start.y + 8 } : side(to);
    const lines = labelLines(transition.labels);
    const width = Math.max(...lines.map((line) => textWidth(line, LABEL_FONT_SIZE)));
    const height = lines.length * (LABEL_FONT_SIZE + 3);
    const label = { x: lane + 4, y: (start.y + end.y) / 2 - height / 2, width, height };
    widest = Math.max(widest, label.x + width);
    return {
      ...transition,
      lines,
      points: [start, { x: lane, y: start.y }, { x: lane, y: end.y }, end],
      label,
    };
  });
  return { id: machine.id, width: widest + MARGIN, height: bottom + MARGIN, states, edges };
}
