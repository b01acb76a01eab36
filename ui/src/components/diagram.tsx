import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
/** One download per lifecycle: the diagram only changes when the server's definitions do. */
const diagrams = new Map<string, Promise<string>>();

function loadDiagram(machine: string) {
  let svg = diagrams.get(machine);
  if (!svg) {
    svg = api.diagram(machine);
    diagrams.set(machine, svg);
    svg.catch(() => diagrams.delete(machine));
  }
  return svg;
}

export interface DiagramMarks {
  /** The state the run rests in. */
  current?: string;
  /** Steps the run took, as `before -> after` pairs; their edges and states are marked. */
  path?: ReadonlyArray<{ before: string; after: string }>;
  /** A number drawn on each state, e.g. how many runs rest there. */
  counts?: Readonly<Record<string, number>>;
}

/**
 * The lifecycle's statechart exactly as the committed diagrams draw it (Graphviz SVG from the
 * server), marked by the titles Graphviz gives each node (`STATE`) and edge (`FROM->TO`).
 */
export function Diagram({ machine, marks }: { machine: string; marks: DiagramMarks }) {
  const host = useRef<HTMLDivElement>(null);
  const [svg, setSvg] = useState<string>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    setSvg(undefined);
    setError(undefined);
    loadDiagram(machine).then(setSvg, (e: Error) => setError(`${e.name}: ${e.message}`));
  }, [machine]);
  useEffect(() => {
    if (host.current && svg) applyMarks(host.current, marks);
  });
  if (error) return <p class="error">{error}</p>;
  if (!svg) return <p class="muted">drawing…</p>;
  // The SVG comes from our own server's Graphviz rendering of a machine definition.
  return <div class="diagram" ref={host} dangerouslySetInnerHTML={{ __html: svg }} />;
}

function applyMarks(root: HTMLElement, { current, path = [], counts }: DiagramMarks) {
  const visited = new Set(path.flatMap((step) => [step.before, step.after]));
  const taken = new Set(path.map((step) => `${step.before}->${step.after}`));
  // Every run entered its first state from the start point.
  const first = path[0]?.before ?? current;
  if (first) taken.add(`__initial->${first}`);
  for (const node of root.querySelectorAll<SVGGElement>('g.node')) {
    const name = node.querySelector('title')?.textContent ?? '';
    node.dataset.state = name;
    node.classList.toggle('current', name === current);
    node.classList.toggle('visited', visited.has(name) && name !== current);
    node.querySelector('.count')?.remove();
    const count = counts?.[name];
    if (count) drawCount(node, count);
  }
  for (const edge of root.querySelectorAll<SVGGElement>('g.edge')) {
    const name = edge.querySelector('title')?.textContent ?? '';
    edge.classList.toggle('taken', taken.has(name));
  }
}

/** A small badge on the node's top right corner with the number in it, inside the drawing's bounds. */
function drawCount(node: SVGGElement, count: number) {
  const box = node.getBBox();
  const group = document.createElementNS(SVG_NS, 'g');
  group.setAttribute('class', 'count');
  const circle = document.createElementNS(SVG_NS, 'circle');
  circle.setAttribute('cx', String(box.x + box.width - 6));
  circle.setAttribute('cy', String(box.y + 6));
  circle.setAttribute('r', '10');
  const text = document.createElementNS(SVG_NS, 'text');
  text.setAttribute('x', String(box.x + box.width - 6));
  text.setAttribute('y', String(box.y + 10));
  text.setAttribute('text-anchor', 'middle');
  text.textContent = String(count);
  group.append(circle, text);
  node.append(group);
}
