import type { ELK as ElkApi, ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import elkModule from 'elkjs/lib/elk.bundled.js';
import type { AnyStateMachine } from 'xstate';
import { type DiagramOptions, type DiagramState, diagramModel } from './diagram-edges.js';

/** The font size of state names and edge labels, in px; text widths are estimated from it. */
export const FONT_SIZE = 13;
export const LABEL_FONT_SIZE = 11;
/** The height of a compound state's header, where its name is written. */
export const HEADER = 28;
const INITIAL_DOT = 12;
const HISTORY = 28;

/** An estimate of a text's width in a sans-serif font: no font metrics on the server. */
export function textWidth(text: string, fontSize: number): number {
  return Math.ceil(text.length * fontSize * 0.6) + 2;
}

export type StateKind = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

/** A state placed by the layout, with its children; coordinates are the drawing's (absolute). */
export interface LaidState {
  readonly path: string;
  readonly key: string;
  readonly kind: StateKind;
  /** `deep` or `shallow` for history states. */
  readonly history?: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly children: readonly LaidState[];
  /** The start dot of a compound (or the machine's root) that points to its initial child. */
  readonly initial?: { x: number; y: number; size: number };
}

/** A transition placed by the layout: the state that defines it, the state it targets, its label lines. */
export interface LaidEdge {
  /** Dotted path of the defining state, or `__initial` for a start dot's arrow (`__initial:<parent>` below the root). */
  readonly source: string;
  readonly target: string;
  readonly labels: readonly string[];
  /** The label as drawn: a long label's guard `[...]` on a line of its own. */
  readonly lines: readonly string[];
  readonly internal: boolean;
  /** The labels of quiet events folded into its last line (`quiet-events.ts`), if any. */
  readonly quiet?: readonly string[];
  readonly points: ReadonlyArray<{ x: number; y: number }>;
  readonly label?: { x: number; y: number; width: number; height: number };
}

export interface StatechartLayout {
  readonly id: string;
  readonly width: number;
  readonly height: number;
  readonly states: readonly LaidState[];
  readonly initial?: { x: number; y: number; size: number };
  readonly edges: readonly LaidEdge[];
}

/** The widest a label's line is let grow before its guard wraps, in characters. */
const LINE_CHARS = 26;

/**
 * A label's lines as drawn: a long label's guard `[a & b & c]` goes under its event, wrapped at its
 * `&`s, so an arrow's label stays narrow whichever way the chart is laid out.
 */
export function labelLines(labels: readonly string[]): string[] {
  return labels.flatMap((label) => {
    const at = label.indexOf(' [');
    if (at < 0 || label.length <= LINE_CHARS) return [label];
    const lines = [label.slice(0, at)];
    let line = '';
    for (const part of label.slice(at + 1).split(' & ')) {
      const next = line ? `${line} & ${part}` : part;
      if (line && next.length > LINE_CHARS) {
        lines.push(`${line} &`);
        line = part;
      } else line = next;
    }
    lines.push(line);
    return lines;
  });
}

const elkId = (path: string) => `s:${path}`;
const initialId = (path: string) => `i:${path}`;

/**
 * A state as ELK's graph: a box, or a box of boxes with its start dot. Parallel regions are laid out
 * by the same layered algorithm as everything else (another algorithm inside a box would cut the
 * arrows that cross its border, such as one to a history state in a region); in a chart laid out
 * left to right (`chainRegions`), an edge that is never drawn runs from each region to the next, so
 * the regions stand side by side in a row rather than stacked in one layer.
 */
function elkState(state: DiagramState, chainRegions: boolean): ElkNode {
  const { path, kind } = state;
  if (kind === 'history') return { id: elkId(path), width: HISTORY, height: HISTORY };
  const regions = state.children;
  const children = regions.map((child) => elkState(child, chainRegions));
  const nameWidth = textWidth(state.key, FONT_SIZE) + 24;
  if (children.length === 0) return { id: elkId(path), width: Math.max(nameWidth, 72), height: 36 };
  const edges: ElkExtendedEdge[] = [];
  if (kind === 'compound' && state.initial !== undefined) {
    children.unshift({ id: initialId(path), width: INITIAL_DOT, height: INITIAL_DOT });
    edges.push({ id: `e:init:${path}`, sources: [initialId(path)], targets: [elkId(state.initial)] });
  }
  if (kind === 'parallel' && chainRegions) {
    for (let i = 1; i < regions.length; i++) {
      edges.push({
        id: `e:chain:${path}:${i}`,
        sources: [elkId(regions[i - 1]!.path)],
        targets: [elkId(regions[i]!.path)],
      });
    }
  }
  return {
    id: elkId(path),
    children,
    edges,
    layoutOptions: {
      'elk.padding': `[top=${HEADER + 12},left=14,bottom=14,right=14]`,
      'elk.nodeSize.constraints': 'MINIMUM_SIZE',
      'elk.nodeSize.minimum': `(${nameWidth + 16},${HEADER + 40})`,
    },
  };
}

function place(node: ElkNode, state: DiagramState): LaidState {
  const { path, key, kind } = state;
  const byId = new Map((node.children ?? []).map((child) => [child.id, child]));
  const dot = byId.get(initialId(path));
  return {
    path,
    key,
    kind,
    ...(state.history && { history: state.history }),
    x: node.x ?? 0,
    y: node.y ?? 0,
    width: node.width ?? 0,
    height: node.height ?? 0,
    children: state.children.map((child) => place(byId.get(elkId(child.path))!, child)),
    ...(dot && { initial: { x: dot.x ?? 0, y: dot.y ?? 0, size: INITIAL_DOT } }),
  };
}

/** Every edge of the laid-out graph, wherever in the hierarchy ELK keeps it. */
function allEdges(node: ElkNode): ElkExtendedEdge[] {
  return [...(node.edges ?? []), ...(node.children ?? []).flatMap(allEdges)];
}

/** elkjs's bundle is CommonJS (`module.exports = ELK`); its types describe an ES default export. */
const ELK = ((elkModule as unknown as { default?: unknown }).default ?? elkModule) as new () => ElkApi;
let elk: ElkApi | undefined;

/**
 * The ways a chart may be laid out, in order of preference: left to right (a small machine reads
 * best as a row) and top to bottom (the root's states in rows, which suits a deep machine with
 * wide compound states or long chains). ELK's wrapping of a row was tried and leaves wrapped
 * arrows ending in mid-air; with `INCLUDE_CHILDREN` a compound's own direction is ignored.
 */
const DIRECTIONS = ['RIGHT', 'DOWN'] as const;
/** The screen a layout is chosen for: a desktop column's width, and about two screens' height to pan. */
const SCREEN = { width: 1380, height: 1600 };

/** The scale at which a drawing fits the screen's width (and no more than its panning height), at most 1. */
function screenFit(laid: ElkNode): number {
  return Math.min(1, SCREEN.width / (laid.width || 1), SCREEN.height / (laid.height || 1));
}

const LAYERED = {
  'elk.algorithm': 'layered',
  'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
  'elk.json.edgeCoords': 'ROOT',
  'elk.json.shapeCoords': 'ROOT',
  'elk.edgeRouting': 'ORTHOGONAL',
  'elk.padding': '[top=16,left=16,bottom=16,right=16]',
  'elk.spacing.nodeNode': '28',
  'elk.layered.spacing.nodeNodeBetweenLayers': '44',
  'elk.spacing.edgeNode': '14',
  'elk.spacing.edgeEdge': '10',
  'elk.spacing.edgeLabel': '4',
  'elk.layered.spacing.edgeNodeBetweenLayers': '14',
  'elk.edgeLabels.placement': 'CENTER',
  'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
};

/**
 * Lays the machine out as a statechart with ELK's layered algorithm (the one the Stately tools
 * use): compound and parallel states are boxes holding their children, edges may cross their
 * borders (`INCLUDE_CHILDREN`), labels are sized from an estimate of their text. Coordinates come
 * back absolute (`elk.json.*Coords: ROOT`), so the drawing needs no transforms. Of the
 * `DIRECTIONS`, the one whose drawing fits a screen's width at the largest scale wins (the first
 * on a tie), so a wide machine is not squeezed into an unreadable strip. Throws what ELK throws
 * for a graph it cannot lay out (see `drawStatechart` for the drawing that never fails).
 */
export async function layoutStatechart(
  machine: AnyStateMachine,
  options: DiagramOptions = {},
): Promise<StatechartLayout> {
  const model = diagramModel(machine, options);
  const { root, drawsRoot: rootBox } = model;
  const edges = model.transitions;
  const lines = edges.map((edge) => labelLines(edge.labels));
  const elkEdges: ElkExtendedEdge[] = edges.map((edge, i) => ({
    id: `e:${i}`,
    sources: [elkId(edge.source)],
    targets: [elkId(edge.target)],
    labels: [
      {
        text: lines[i]!.join('\n'),
        width: Math.max(...lines[i]!.map((line) => textWidth(line, LABEL_FONT_SIZE))),
        height: lines[i]!.length * (LABEL_FONT_SIZE + 3),
      },
    ],
  }));
  /** The graph's top level: the root's box, or the root's states, its start dot and their edges. */
  const topLevel = (chainRegions: boolean): { children: ElkNode[]; edges: ElkExtendedEdge[] } => {
    const whole = elkState(root, chainRegions);
    if (rootBox) return { children: [whole], edges: [] };
    return { children: whole.children ?? [], edges: whole.edges ?? [] };
  };
  elk ??= new ELK();
  const api = elk;
  // ELK writes its results into the graph it is given: each candidate lays out its own copy.
  const candidates = await Promise.all(
    DIRECTIONS.map((direction): Promise<ElkNode> => {
      const top = topLevel(direction === 'RIGHT');
      return api.layout({
        id: 'root',
        children: top.children,
        edges: [...top.edges, ...structuredClone(elkEdges)],
        layoutOptions: { ...LAYERED, 'elk.direction': direction },
      });
    }),
  );
  const laid = candidates.reduce((best, next) => (screenFit(next) > screenFit(best) ? next : best));
  const byId = new Map((laid.children ?? []).map((child) => [child.id, child]));
  const states = (rootBox ? [root] : root.children).map((state) => place(byId.get(elkId(state.path))!, state));
  const rootDot = rootBox ? undefined : byId.get(initialId(''));
  const laidEdges = new Map(allEdges(laid).map((edge) => [edge.id, edge]));
  const drawn: LaidEdge[] = [];
  const pointsOf = (edge: ElkExtendedEdge | undefined) =>
    (edge?.sections ?? []).flatMap((section) => [section.startPoint, ...(section.bendPoints ?? []), section.endPoint]);
  edges.forEach((edge, i) => {
    const at = laidEdges.get(`e:${i}`);
    const label = at?.labels?.[0];
    drawn.push({
      ...edge,
      lines: lines[i]!,
      points: pointsOf(at),
      ...(label && {
        label: { x: label.x ?? 0, y: label.y ?? 0, width: label.width ?? 0, height: label.height ?? 0 },
      }),
    });
  });
  for (const [id, at] of laidEdges) {
    if (!id.startsWith('e:init:')) continue;
    const parent = id.slice('e:init:'.length);
    drawn.push({
      source: parent === '' ? '__initial' : `__initial:${parent}`,
      target: at.targets[0]!.slice(2),
      labels: [],
      lines: [],
      internal: false,
      points: pointsOf(at),
    });
  }
  return {
    id: machine.id,
    width: laid.width ?? 0,
    height: laid.height ?? 0,
    states,
    ...(rootDot && { initial: { x: rootDot.x ?? 0, y: rootDot.y ?? 0, size: INITIAL_DOT } }),
    edges: drawn,
  };
}
