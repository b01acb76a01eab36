import type { AnyStateMachine } from 'xstate';
import type { DiagramOptions } from './diagram-edges.js';
import {
  FONT_SIZE,
  HEADER,
  LABEL_FONT_SIZE,
  labelLines,
  type LaidEdge,
  type LaidState,
  layoutStatechart,
  type StatechartLayout,
  textWidth,
} from './statechart-layout.js';
import { outlineLayout } from './statechart-outline.js';

/** The room above a drawing for its note. */
const NOTE_HEIGHT = 22;

const escapeXml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const n = (value: number) => String(Math.round(value * 10) / 10);

/**
 * Styles scoped to the drawing (`svg.statechart`), so the file reads alone and the view can restyle it;
 * dark colours under `prefers-color-scheme: dark`, so the chart is no white slab in a dark page.
 */
const STYLE = `
svg.statechart { font-family: Helvetica, Arial, sans-serif; }
svg.statechart .state > rect.box { fill: #fff; stroke: #555; stroke-width: 1.2; }
svg.statechart .compound > rect.box, svg.statechart .parallel > rect.box { fill: #f6f7f9; }
svg.statechart .parallel > rect.box { stroke-dasharray: 6 3; }
svg.statechart .compound > line.header, svg.statechart .parallel > line.header { stroke: #ccc; }
svg.statechart .final > rect.inner { fill: none; stroke: #555; stroke-width: 1.2; }
svg.statechart .history > circle { fill: #fff; stroke: #555; }
svg.statechart text { fill: #222; font-size: ${FONT_SIZE}px; }
svg.statechart .edge path { fill: none; stroke: #777; stroke-width: 1.2; }
svg.statechart .edge text { font-size: ${LABEL_FONT_SIZE}px; fill: #333; }
svg.statechart .edge rect.label { fill: #fff; fill-opacity: 0.85; }
svg.statechart .edge.quiet path { stroke: #8c959f; stroke-dasharray: 4 3; }
svg.statechart .edge text.quiet { font-style: italic; fill: #57606a; }
svg.statechart text.note { font-size: ${LABEL_FONT_SIZE}px; font-style: italic; fill: #8a5a00; }
svg.statechart .initial-dot, svg.statechart marker path { fill: #555; }
@media (prefers-color-scheme: dark) {
  svg.statechart .state > rect.box { fill: #1c2128; stroke: #8b949e; }
  svg.statechart .compound > rect.box, svg.statechart .parallel > rect.box { fill: #161b22; }
  svg.statechart .compound > line.header, svg.statechart .parallel > line.header { stroke: #30363d; }
  svg.statechart .final > rect.inner, svg.statechart .history > circle { stroke: #8b949e; }
  svg.statechart .history > circle { fill: #1c2128; }
  svg.statechart text { fill: #e6edf3; }
  svg.statechart .edge path { stroke: #8b949e; }
  svg.statechart .edge text { fill: #c9d1d9; }
  svg.statechart .edge.quiet path { stroke: #6e7681; }
  svg.statechart .edge text.quiet { fill: #9198a1; }
  svg.statechart .edge rect.label { fill: #0d1117; }
  svg.statechart .initial-dot, svg.statechart marker path { fill: #c9d1d9; }
}
`;

function drawState(state: LaidState, out: string[], indent: string) {
  const classes = ['state', 'node', state.kind];
  if (state.kind === 'parallel' || state.kind === 'compound') classes.push('compound-like');
  out.push(`${indent}<g class="${classes.join(' ')}" data-state="${escapeXml(state.path)}">`);
  out.push(`${indent}  <title>${escapeXml(state.path)}</title>`);
  const { x, y, width: w, height: h } = state;
  if (state.kind === 'history') {
    out.push(`${indent}  <circle cx="${n(x + w / 2)}" cy="${n(y + h / 2)}" r="${n(w / 2)}"/>`);
    const mark = state.history === 'deep' ? 'H*' : 'H';
    out.push(`${indent}  <text x="${n(x + w / 2)}" y="${n(y + h / 2 + 4)}" text-anchor="middle">${mark}</text>`);
  } else if (state.children.length > 0) {
    out.push(`${indent}  <rect class="box" x="${n(x)}" y="${n(y)}" width="${n(w)}" height="${n(h)}" rx="10"/>`);
    out.push(
      `${indent}  <line class="header" x1="${n(x)}" y1="${n(y + HEADER)}" x2="${n(x + w)}" y2="${n(y + HEADER)}"/>`,
    );
    out.push(
      `${indent}  <text class="name" x="${n(x + 10)}" y="${n(y + HEADER / 2 + 5)}" font-weight="bold">${escapeXml(state.key)}</text>`,
    );
    if (state.initial) drawInitial(state.initial, out, `${indent}  `);
    for (const child of state.children) drawState(child, out, `${indent}  `);
  } else {
    out.push(`${indent}  <rect class="box" x="${n(x)}" y="${n(y)}" width="${n(w)}" height="${n(h)}" rx="8"/>`);
    if (state.kind === 'final') {
      out.push(
        `${indent}  <rect class="inner" x="${n(x + 3)}" y="${n(y + 3)}" width="${n(w - 6)}" height="${n(h - 6)}" rx="6"/>`,
      );
    }
    out.push(
      `${indent}  <text class="name" x="${n(x + w / 2)}" y="${n(y + h / 2 + 4.5)}" text-anchor="middle">${escapeXml(state.key)}</text>`,
    );
  }
  out.push(`${indent}</g>`);
}

function drawInitial(dot: { x: number; y: number; size: number }, out: string[], indent: string) {
  out.push(
    `${indent}<circle class="initial-dot" cx="${n(dot.x + dot.size / 2)}" cy="${n(dot.y + dot.size / 2)}" r="${n(dot.size / 2)}"/>`,
  );
}

function drawEdge(edge: LaidEdge, out: string[]) {
  if (edge.points.length < 2) return;
  const name = `${edge.source}->${edge.target}`;
  // The quiet labels folded into the last label: its lines drawn muted, the arrow dashed when it has no other.
  const quietLines = edge.quiet?.length ? labelLines(edge.labels.slice(-1)).length : 0;
  const classes = [
    'edge',
    ...(edge.source.startsWith('__initial') ? ['initial'] : []),
    ...(edge.internal ? ['internal'] : []),
    ...(quietLines && quietLines === edge.lines.length ? ['quiet'] : []),
  ];
  out.push(
    `  <g class="${classes.join(' ')}" data-source="${escapeXml(edge.source)}" data-target="${escapeXml(edge.target)}"${edge.quiet?.length ? ` data-quiet="${escapeXml(edge.quiet.join('\n'))}"` : ''}>`,
  );
  out.push(
    `    <title>${escapeXml(edge.quiet?.length ? `${name}: ${edge.labels.slice(0, -1).concat(edge.quiet).join(', ')}` : name)}</title>`,
  );
  const d = edge.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${n(p.x)},${n(p.y)}`).join(' ');
  out.push(`    <path d="${d}" marker-end="url(#statechart-arrow)"/>`);
  if (edge.label) {
    const { x, y, width, height } = edge.label;
    out.push(
      `    <rect class="label" x="${n(x - 2)}" y="${n(y - 1)}" width="${n(width + 4)}" height="${n(height + 2)}" rx="3"/>`,
    );
    edge.lines.forEach((line, i) => {
      const quiet = i >= edge.lines.length - quietLines ? ' class="quiet"' : '';
      out.push(
        `    <text${quiet} x="${n(x + width / 2)}" y="${n(y + (i + 1) * (LABEL_FONT_SIZE + 3) - 3)}" text-anchor="middle">${escapeXml(line)}</text>`,
      );
    });
  }
  out.push('  </g>');
}

/** SVG of a laid-out statechart: nested `<g data-state>` per state, start dots, edges drawn on top, and `note` above them all. */
export function statechartSvg(layout: StatechartLayout, note?: string): string {
  const shift = note ? NOTE_HEIGHT : 0;
  const width = Math.ceil(Math.max(layout.width, note ? textWidth(note, LABEL_FONT_SIZE) + 32 : 0));
  const height = Math.ceil(layout.height + shift);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="statechart" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(`statechart of ${layout.id}`)}">`,
    `  <style>${STYLE}</style>`,
    '  <defs><marker id="statechart-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>',
  ];
  if (note) {
    out.push(`  <text class="note" x="16" y="${NOTE_HEIGHT - 4}">${escapeXml(note)}</text>`);
    out.push(`  <g transform="translate(0,${NOTE_HEIGHT})">`);
  }
  out.push('  <g class="states">');
  if (layout.initial) drawInitial(layout.initial, out, '    ');
  for (const state of layout.states) drawState(state, out, '    ');
  out.push('  </g>', '  <g class="edges">');
  for (const edge of layout.edges) drawEdge(edge, out);
  out.push('  </g>');
  if (note) out.push('  </g>');
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** A statechart's SVG, and why it is the simpler drawing when ELK could not lay the machine out. */
export interface DrawnStatechart {
  readonly svg: string;
  /** Set when the drawing is the outline (`outlineLayout`): what ELK said. */
  readonly fallback?: string;
}

/**
 * The machine drawn as a statechart: ELK's layout (`layoutStatechart`) rendered to SVG, or, should
 * ELK refuse the graph, the outline drawing (`outlineLayout`), which says on it that it is the
 * simpler one. Never rejects for a machine XState accepted, so the view always has a chart.
 */
export async function drawStatechart(machine: AnyStateMachine, options: DiagramOptions = {}): Promise<DrawnStatechart> {
  try {
    return { svg: statechartSvg(await layoutStatechart(machine, options)) };
  } catch (error) {
    const fallback = error instanceof Error ? error.message : String(error);
    return { svg: statechartSvg(outlineLayout(machine, options), OUTLINE_NOTE), fallback };
  }
}

const OUTLINE_NOTE = 'A simpler drawing: the layout of this chart failed (the server log says why).';

/** The machine drawn as a statechart (`drawStatechart`), its SVG alone. */
export async function renderStatechart(machine: AnyStateMachine): Promise<string> {
  return (await drawStatechart(machine)).svg;
}
