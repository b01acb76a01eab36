import type { ELK as ElkApi, ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import elkModule from 'elkjs/lib/elk.bundled.js';
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { stateName, transitionEdges } from './transition-table.js';

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

/** Event types as a person reads them: `after 5000ms` for XState's delayed events, `always` for eventless ones. */
export function eventLabel(event: string): string {
  const delayed = /^xstate\.after\.([^.]+)\./.exec(event);
  if (delayed) return `after ${/^\d+$/.test(delayed[1]!) ? `${delayed[1]}ms` : delayed[1]}`;
  return event === '' ? 'always' : event;
}

/**
 * The transitions as a statechart draws them: one arrow from the state that defines a transition
 * (a compound state's transition leaves its box, not every leaf inside) to the state it names (a
 * compound target enters its box, whose start dot shows where it goes on). Read from the one-step
 * table's rows (`transitionEdges`) by the definitions they come from; a guard is written where it
 * chooses between branches of one event.
 */
export function statechartEdges(
  machine: AnyStateMachine,
): Array<{ source: string; target: string; labels: string[]; internal: boolean }> {
  const definitions = new Set(
    transitionEdges(machine).map(
      (row) => row.definition as { source: AnyStateNode; target?: AnyStateNode[]; eventType: string; guard?: unknown },
    ),
  );
  const rowsByDefinition = new Map(transitionEdges(machine).map((row) => [row.definition, row] as const));
  const byPair = new Map<string, { source: string; target: string; labels: string[]; internal: boolean }>();
  for (const definition of definitions) {
    const row = rowsByDefinition.get(definition)!;
    const branches = definition.source.transitions.get(definition.eventType)?.length ?? 1;
    const event = eventLabel(row.event);
    const label = row.guard && branches > 1 ? `${event} [${row.guard}]` : event;
    const source = stateName(definition.source);
    const targets = definition.target?.length ? definition.target.map(stateName) : [source];
    for (const target of targets) {
      const key = `${source}\u0000${target}`;
      const edge = byPair.get(key) ?? { source, target, labels: [], internal: !definition.target?.length };
      if (!edge.labels.includes(label)) edge.labels.push(label);
      byPair.set(key, edge);
    }
  }
  return [...byPair.values()];
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

function stateKind(node: AnyStateNode): StateKind {
  return node.type as StateKind;
}

function elkState(node: AnyStateNode): ElkNode {
  const path = stateName(node);
  const kind = stateKind(node);
  if (kind === 'history') return { id: elkId(path), width: HISTORY, height: HISTORY };
  const children = (Object.values(node.states) as AnyStateNode[]).map(elkState);
  const nameWidth = textWidth(node.key, FONT_SIZE) + 24;
  if (children.length === 0) return { id: elkId(path), width: Math.max(nameWidth, 72), height: 36 };
  const initial = node.initial?.target[0];
  const edges: ElkExtendedEdge[] = [];
  if (kind === 'compound' && initial) {
    children.unshift({ id: initialId(path), width: INITIAL_DOT, height: INITIAL_DOT });
    edges.push({ id: `e:init:${path}`, sources: [initialId(path)], targets: [elkId(stateName(initial))] });
  }
  return {
    id: elkId(path),
    children,
    edges,
    layoutOptions: {
      'elk.padding': `[top=${HEADER + 12},left=14,bottom=14,right=14]`,
      'elk.nodeSize.constraints': 'MINIMUM_SIZE',
      'elk.nodeSize.minimum': `(${nameWidth + 16},${HEADER + 40})`,
      // Parallel regions side by side: laid out on their own, packed in a row.
      ...(kind === 'parallel' && {
        'elk.algorithm': 'rectpacking',
        'elk.aspectRatio': '100',
        'elk.spacing.nodeNode': '16',
      }),
    },
  };
}

function place(node: ElkNode, machineNode: AnyStateNode): LaidState {
  const path = stateName(machineNode);
  const byId = new Map((node.children ?? []).map((child) => [child.id, child]));
  const dot = byId.get(initialId(path));
  return {
    path,
    key: machineNode.key,
    kind: stateKind(machineNode),
    ...(machineNode.type === 'history' && { history: machineNode.history || 'shallow' }),
    x: node.x ?? 0,
    y: node.y ?? 0,
    width: node.width ?? 0,
    height: node.height ?? 0,
    children: (Object.values(machineNode.states) as AnyStateNode[]).map((child) =>
      place(byId.get(elkId(stateName(child)))!, child),
    ),
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
const DIRECTIONS: ReadonlyArray<Record<string, string>> = [{ 'elk.direction': 'RIGHT' }, { 'elk.direction': 'DOWN' }];
/** The screen a layout is chosen for: a desktop column's width, and about two screens' height to pan. */
const SCREEN = { width: 1380, height: 1600 };

/** The scale at which a drawing fits the screen's width (and no more than its panning height), at most 1. */
function screenFit(laid: ElkNode): number {
  return Math.min(1, SCREEN.width / (laid.width || 1), SCREEN.height / (laid.height || 1));
}

/**
 * Lays the machine out as a statechart with ELK's layered algorithm (the one the Stately tools
 * use): compound states are boxes holding their children, edges may cross their borders
 * (`INCLUDE_CHILDREN`), labels are sized from an estimate of their text. Coordinates come back
 * absolute (`elk.json.*Coords: ROOT`), so the drawing needs no transforms. Of the `DIRECTIONS`,
 * the one whose drawing fits a screen's width at the largest scale wins (the first on a tie), so a
 * wide machine is not squeezed into an unreadable strip.
 */
export async function layoutStatechart(machine: AnyStateMachine): Promise<StatechartLayout> {
  const root = machine.root;
  const top = (Object.values(root.states) as AnyStateNode[]).map(elkState);
  const edges = statechartEdges(machine);
  const initial = root.initial?.target[0];
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
  if (initial) {
    top.unshift({ id: initialId(''), width: INITIAL_DOT, height: INITIAL_DOT });
    elkEdges.push({ id: 'e:init:', sources: [initialId('')], targets: [elkId(stateName(initial))] });
  }
  elk ??= new ELK();
  const api = elk;
  const base = {
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
  // ELK writes its results into the graph it is given: each candidate lays out its own copy.
  const candidates = await Promise.all(
    DIRECTIONS.map(
      (options): Promise<ElkNode> =>
        api.layout({
          id: 'root',
          children: structuredClone(top),
          edges: structuredClone(elkEdges),
          layoutOptions: { ...base, ...options },
        }),
    ),
  );
  const laid = candidates.reduce((best, next) => (screenFit(next) > screenFit(best) ? next : best));
  const byId = new Map((laid.children ?? []).map((child) => [child.id, child]));
  const states = (Object.values(root.states) as AnyStateNode[]).map((child) =>
    place(byId.get(elkId(stateName(child)))!, child),
  );
  const rootDot = byId.get(initialId(''));
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
