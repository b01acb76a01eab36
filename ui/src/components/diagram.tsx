import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { retryDelayMs, worthRetrying } from '../retry.js';
import './diagram.css';
import { type PanZoom, panZoom } from './pan-zoom.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
/** One download per lifecycle and drawing: the diagram only changes when the server's definitions do. */
const diagrams = new Map<string, Promise<string>>();

function loadDiagram(machine: string, allEvents: boolean) {
  const key = `${machine}\u0000${allEvents}`;
  let svg = diagrams.get(key);
  if (!svg) {
    svg = api.diagram(machine, allEvents);
    diagrams.set(key, svg);
    svg.catch(() => diagrams.delete(key));
  }
  return svg;
}

export interface DiagramMarks {
  /** The state the run rests in: a leaf, or in a parallel state its leaves joined by `|`, each highlighted. */
  current?: string;
  /** Steps the run took, as `before -> after` pairs; their edges and states are marked. */
  path?: ReadonlyArray<{ before: string; after: string }>;
  /** How many runs rest in each state (the API's counts): drawn on each leaf, a parallel configuration's on each of its leaves. */
  counts?: Readonly<Record<string, number>>;
}

/**
 * The lifecycle's statechart as the server draws it (nested boxes laid out by ELK, every state a
 * `<g data-state>`, every arrow a `<g class="edge" data-source data-target>`, the events no person
 * sends folded into one muted line per arrow unless "all events" is on), in a viewport that zooms
 * and pans under a toolbar of its own (so no control covers the drawing): first shown readable
 * (whole if its text stays readable, else to its width or a readable scale around the current
 * state), **fit** for the whole chart, **1:1** back to readable; the viewport as tall as the
 * drawing within bounds; marked with the current state, its ancestors and the path.
 */
export function Diagram({ machine, marks }: { machine: string; marks: DiagramMarks }) {
  const host = useRef<HTMLDivElement>(null);
  const viewport = useRef<HTMLDivElement>(null);
  const zoom = useRef<PanZoom | undefined>(undefined);
  const current = useRef(marks.current);
  current.current = marks.current;
  const [svg, setSvg] = useState<string>();
  const [error, setError] = useState<string>();
  // The events no person sends are folded into one muted line per arrow, until the person asks for all.
  const [allEvents, setAllEvents] = useState(false);
  useEffect(() => {
    setError(undefined);
    let current = true;
    let retry: ReturnType<typeof setTimeout> | undefined;
    // A failed download is shown and tried again, the wait doubling (retry.ts): nothing else asks for it again.
    const load = (failures: number) =>
      loadDiagram(machine, allEvents).then(
        (drawn) => {
          if (!current) return;
          setError(undefined);
          setSvg(drawn);
        },
        (e: Error) => {
          if (!current) return;
          setError(`${e.name}: ${e.message}`);
          if (worthRetrying(e)) retry = setTimeout(() => load(failures + 1), retryDelayMs(failures));
        },
      );
    void load(0);
    return () => {
      current = false;
      clearTimeout(retry);
    };
  }, [machine, allEvents]);
  const folds = !!svg && (allEvents || svg.includes('data-quiet='));
  useEffect(() => {
    if (!svg || !viewport.current || !host.current) return;
    const content = host.current;
    const size = () => {
      const drawing = content.querySelector('svg');
      return {
        width: Number(drawing?.getAttribute('width')) || 0,
        height: Number(drawing?.getAttribute('height')) || 0,
      };
    };
    // A chart too big to show whole at a readable scale is first shown around the current state.
    const focus = () => {
      const name = leavesOf(current.current)[0];
      const node = [...content.querySelectorAll<SVGGElement>('g.state')].find((g) => g.dataset.state === name);
      return node?.getBBox();
    };
    zoom.current = panZoom(viewport.current, content, size, viewport.current.parentElement ?? viewport.current, focus);
    zoom.current.readable();
    return () => zoom.current?.destroy();
  }, [svg]);
  useEffect(() => {
    if (host.current && svg) applyMarks(host.current, marks);
  });
  if (error) return <p class="error">{error}</p>;
  if (!svg) return <p class="muted">drawing…</p>;
  return (
    <div class="diagram">
      <div class="diagram-tools" role="toolbar" aria-label="diagram zoom">
        <button
          type="button"
          name="zoom-in"
          aria-label="zoom in"
          title="zoom in (+)"
          onClick={() => zoom.current?.zoomIn()}
        >
          +
        </button>
        <button
          type="button"
          name="zoom-out"
          aria-label="zoom out"
          title="zoom out (-)"
          onClick={() => zoom.current?.zoomOut()}
        >
          −
        </button>
        <button
          type="button"
          name="fit"
          aria-label="fit"
          title="the whole chart in the frame (0)"
          onClick={() => zoom.current?.fit()}
        >
          fit
        </button>
        <button
          type="button"
          name="readable"
          aria-label="readable size"
          title={`readable size${current.current ? ', around the current state' : ''} (1)`}
          onClick={() => zoom.current?.readable()}
        >
          1:1
        </button>
        {folds && (
          <button
            type="button"
            name="all-events"
            aria-pressed={allEvents}
            title="the events only agents, timers and drivers send: folded into one line per arrow, or every one written out"
            onClick={() => setAllEvents(!allEvents)}
          >
            {allEvents ? 'fold internal events' : 'all events'}
          </button>
        )}
      </div>
      {/* The SVG is our own server's drawing; +, -, 0, 1 and the arrows work while a zoom button has focus. */}
      <div class="diagram-viewport" ref={viewport}>
        <div class="diagram-content" ref={host} dangerouslySetInnerHTML={{ __html: svg }} />
      </div>
    </div>
  );
}

/** True when `state` is `ancestor` or below it; every state is below the machine's own box (`''`). */
const within = (state: string, ancestor: string) =>
  ancestor === '' || state === ancestor || state.startsWith(`${ancestor}.`);

/** The leaves a run's state names: one, or in a parallel state one per region (`a.x|b.y`, as the API writes it). */
export const leavesOf = (state: string | undefined): string[] => (state ? state.split('|') : []);

/** Runs counted by the state they rest in, a parallel configuration's counted on each of its leaves (by region). */
export function countsByLeaf(counts: Readonly<Record<string, number>>): Record<string, number> {
  const byLeaf: Record<string, number> = {};
  for (const [state, count] of Object.entries(counts))
    for (const leaf of leavesOf(state)) byLeaf[leaf] = (byLeaf[leaf] ?? 0) + count;
  return byLeaf;
}

function applyMarks(root: HTMLElement, { current, path = [], counts }: DiagramMarks) {
  const currents = leavesOf(current);
  const visited = new Set(path.flatMap((step) => [...leavesOf(step.before), ...leavesOf(step.after)]));
  // Every run entered its first states from the start point.
  const first = leavesOf(path[0]?.before ?? current);
  const leafCounts = counts && countsByLeaf(counts);
  for (const node of root.querySelectorAll<SVGGElement>('g.state')) {
    const name = node.dataset.state ?? '';
    const isCurrent = currents.includes(name);
    node.classList.toggle('current', isCurrent);
    node.classList.toggle('active', !isCurrent && currents.some((leaf) => within(leaf, name)));
    node.classList.toggle('visited', !isCurrent && [...visited].some((state) => within(state, name)));
    node.querySelector(':scope > .count')?.remove();
    const count = leafCounts?.[name];
    if (count) drawCount(node, count);
  }
  const entered = [...visited, ...first];
  for (const edge of root.querySelectorAll<SVGGElement>('g.edge')) {
    const source = edge.dataset.source ?? '';
    const target = edge.dataset.target ?? '';
    const taken = source.startsWith('__initial')
      ? (source === '__initial' && first.some((leaf) => within(leaf, target))) ||
        (source !== '__initial' && entered.some((state) => within(state, target)))
      : path.some(
          (step) =>
            leavesOf(step.before).some((leaf) => within(leaf, source)) &&
            leavesOf(step.after).some((leaf) => within(leaf, target)),
        );
    edge.classList.toggle('taken', taken);
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
