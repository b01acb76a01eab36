/** Zoom and pan of `content` (its natural size `width` x `height`) inside `viewport`: a CSS transform. */
export interface PanZoom {
  zoomIn(): void;
  zoomOut(): void;
  /**
   * The whole drawing in the viewport, centred, never enlarged past 1.5x, however small that makes
   * it: the overview. The viewport's height follows the drawing's at that scale, within the CSS's
   * min-height and max-height.
   */
  fit(): void;
  /**
   * The view a chart is first shown in: the whole drawing when that keeps its text readable
   * (`READABLE`); else the drawing's width, at most its natural size (or the readable scale, if its
   * width would be smaller), panned to `focus` (the current state) or its top middle.
   */
  readable(): void;
  /** Stops listening to the viewport. */
  destroy(): void;
}

const MIN = 0.1;
const MAX = 4;
const STEP = 1.25;
/** The smallest scale a chart is first shown at: its 11 px labels stay 10 px tall, its 13 px names 12 px. */
export const READABLE = 0.9;

/** A region of the drawing, in its own (unscaled) pixels. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Wheel (and trackpad pinch, which browsers send as wheel with ctrlKey) zooms around the pointer,
 * dragging pans, two fingers pinch; +, -, 0 (fit), 1 (readable) and the arrows zoom, fit and pan
 * while the focus is in `keys` (the diagram's toolbar and viewport).
 */
export function panZoom(
  viewport: HTMLElement,
  content: HTMLElement,
  size: () => { width: number; height: number },
  keys: HTMLElement = viewport,
  focus: () => Box | undefined = () => undefined,
): PanZoom {
  let scale = 1;
  let x = 0;
  let y = 0;
  const apply = () => {
    content.style.transform = `translate(${x}px, ${y}px) scale(${scale})`;
    viewport.dataset.scale = scale.toFixed(3);
  };
  /** Scales by `factor` keeping the point (px, py) of the viewport still. */
  const zoomAt = (factor: number, px: number, py: number) => {
    const next = Math.min(MAX, Math.max(MIN, scale * factor));
    x = px - ((px - x) * next) / scale;
    y = py - ((py - y) * next) / scale;
    scale = next;
    apply();
  };
  const centre = () => ({ px: viewport.clientWidth / 2, py: viewport.clientHeight / 2 });
  /** The viewport's height bounds from its CSS (`min-height`, `max-height`), in px. */
  const bounds = () => {
    const style = getComputedStyle(viewport);
    const min = Number.parseFloat(style.minHeight) || 0;
    const max = Number.parseFloat(style.maxHeight);
    return { min, max: Number.isFinite(max) ? max : Number.POSITIVE_INFINITY };
  };
  /** Shows the drawing at the scale `choose` picks from the whole drawing's (`whole`) and its width's (`across`). */
  const show = (choose: (whole: number, acrossScale: number) => number) => {
    const { width, height } = size();
    const across = viewport.clientWidth;
    if (!width || !height || !across) return;
    const { min, max } = bounds();
    scale = choose(Math.min(1.5, across / width, max / height), Math.min(1.5, across / width));
    viewport.style.height = `${Math.max(min, Math.min(max, Math.ceil(height * scale)))}px`;
    const down = viewport.clientHeight;
    /** Centred where the drawing fits; else `at` (the focus's centre) in the middle, kept within the drawing. */
    const place = (room: number, extent: number, at: number) =>
      extent <= room ? (room - extent) / 2 : Math.min(0, Math.max(room - extent, room / 2 - at));
    const target = width * scale > across || height * scale > down ? focus() : undefined;
    // Without a focus: the drawing's middle column, from its top.
    x = place(across, width * scale, target ? (target.x + target.width / 2) * scale : (width * scale) / 2);
    y = place(down, height * scale, target ? (target.y + target.height / 2) * scale : 0);
    apply();
  };
  const fitAll = () => show((whole) => whole);
  const readable = () =>
    show((whole, acrossScale) => (whole >= READABLE ? whole : Math.max(READABLE, Math.min(1, acrossScale))));

  const onWheel = (event: WheelEvent) => {
    event.preventDefault();
    const box = viewport.getBoundingClientRect();
    const delta = event.deltaMode === 1 ? event.deltaY * 16 : event.deltaY;
    zoomAt(Math.exp(-delta * (event.ctrlKey ? 0.01 : 0.002)), event.clientX - box.left, event.clientY - box.top);
  };
  const pointers = new Map<number, { x: number; y: number }>();
  const onDown = (event: PointerEvent) => {
    if (event.button !== 0) return;
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    viewport.setPointerCapture?.(event.pointerId);
    viewport.classList.add('dragging');
  };
  const onMove = (event: PointerEvent) => {
    const last = pointers.get(event.pointerId);
    if (!last) return;
    const now = { x: event.clientX, y: event.clientY };
    if (pointers.size === 2) {
      const other = [...pointers].find(([id]) => id !== event.pointerId)![1];
      const before = Math.hypot(last.x - other.x, last.y - other.y);
      const after = Math.hypot(now.x - other.x, now.y - other.y);
      const box = viewport.getBoundingClientRect();
      if (before > 0) zoomAt(after / before, (now.x + other.x) / 2 - box.left, (now.y + other.y) / 2 - box.top);
    } else {
      x += now.x - last.x;
      y += now.y - last.y;
      apply();
    }
    pointers.set(event.pointerId, now);
  };
  const onUp = (event: PointerEvent) => {
    pointers.delete(event.pointerId);
    if (pointers.size === 0) viewport.classList.remove('dragging');
  };
  const onKey = (event: KeyboardEvent) => {
    const { px, py } = centre();
    if (event.key === '+' || event.key === '=') zoomAt(STEP, px, py);
    else if (event.key === '-') zoomAt(1 / STEP, px, py);
    else if (event.key === '0') fitAll();
    else if (event.key === '1') readable();
    else if (event.key.startsWith('Arrow')) {
      x += event.key === 'ArrowLeft' ? 40 : event.key === 'ArrowRight' ? -40 : 0;
      y += event.key === 'ArrowUp' ? 40 : event.key === 'ArrowDown' ? -40 : 0;
      apply();
    } else return;
    event.preventDefault();
  };
  viewport.addEventListener('wheel', onWheel, { passive: false });
  viewport.addEventListener('pointerdown', onDown);
  viewport.addEventListener('pointermove', onMove);
  viewport.addEventListener('pointerup', onUp);
  viewport.addEventListener('pointercancel', onUp);
  keys.addEventListener('keydown', onKey);
  return {
    zoomIn: () => zoomAt(STEP, centre().px, centre().py),
    zoomOut: () => zoomAt(1 / STEP, centre().px, centre().py),
    fit: fitAll,
    readable,
    destroy() {
      viewport.removeEventListener('wheel', onWheel);
      viewport.removeEventListener('pointerdown', onDown);
      viewport.removeEventListener('pointermove', onMove);
      viewport.removeEventListener('pointerup', onUp);
      viewport.removeEventListener('pointercancel', onUp);
      keys.removeEventListener('keydown', onKey);
    },
  };
}
