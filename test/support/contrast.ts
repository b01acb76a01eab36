/**
 * WCAG contrast of every text a page shows, measured in the page: each element with text of its own
 * (HTML and SVG), its colour (an SVG text's `fill`) composed over its effective background, the
 * backgrounds behind it composed from the top down: an HTML element's own and its ancestors'
 * `background-color`, an SVG text's shapes under it (an edge label's plate, its state's box, the
 * boxes it is nested in), then the HTML under the drawing. AA: 4.5:1, 3:1 for large text (24 px,
 * or 18.66 px bold). Disabled controls and hidden text are left out, as WCAG leaves them.
 */
import type { Page } from 'playwright-core';

export interface ContrastFailure {
  readonly text: string;
  readonly element: string;
  readonly color: string;
  readonly background: string;
  readonly ratio: number;
  readonly needed: number;
}

/** Runs in the page (the test's tsconfig has no DOM types, so it is text): every text below AA, and how many were measured. */
const MEASURE = `(() => {
  const parse = (text) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(text || '');
    if (!m) return undefined;
    const [r, g, b, a] = m[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
    return { r, g, b, a: a === undefined || Number.isNaN(a) ? 1 : a };
  };
  const over = (top, bottom) => ({
    r: top.r * top.a + bottom.r * (1 - top.a),
    g: top.g * top.a + bottom.g * (1 - top.a),
    b: top.b * top.a + bottom.b * (1 - top.a),
    a: 1,
  });
  const lum = ({ r, g, b }) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => {
    const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const SHAPES = new Set(['rect', 'circle', 'ellipse', 'polygon', 'path']);
  /** The fills of the SVG shapes painted under point (x, y) of the drawing, nearest first. */
  const svgLayers = (text) => {
    const layers = [];
    const box = text.getBBox();
    const x = box.x + box.width / 2;
    const y = box.y + box.height / 2;
    for (let at = text; at && !(at instanceof SVGSVGElement); at = at.parentElement) {
      for (let sibling = at.previousElementSibling; sibling; sibling = sibling.previousElementSibling) {
        if (!SHAPES.has(sibling.tagName) || sibling.closest('defs, marker')) continue;
        const style = getComputedStyle(sibling);
        const fill = parse(style.fill);
        if (!fill || style.display === 'none') continue;
        const b = sibling.getBBox();
        if (x < b.x || x > b.x + b.width || y < b.y || y > b.y + b.height) continue;
        layers.push({ ...fill, a: fill.a * Number(style.fillOpacity || 1) * Number(style.opacity || 1) });
      }
    }
    return { layers, html: text.ownerSVGElement };
  };
  const htmlLayers = (element) => {
    const layers = [];
    for (let at = element; at; at = at.parentElement) {
      const bg = parse(getComputedStyle(at).backgroundColor);
      if (bg && bg.a > 0) layers.push(bg);
    }
    return layers;
  };
  const failures = [];
  let measured = 0;
  for (const element of document.querySelectorAll('body *')) {
    if (['SCRIPT', 'STYLE', 'title', 'style', 'OPTION', 'TEXTAREA'].includes(element.tagName)) continue;
    const own = [...element.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim();
    if (!own) continue;
    const style = getComputedStyle(element);
    if (style.visibility !== 'visible' || element.getClientRects().length === 0) continue;
    if (element.closest('details:not([open]) > :not(summary)')) continue;
    if (element.closest('button:disabled, [aria-hidden="true"]')) continue;
    const color = parse(element instanceof SVGElement ? style.fill : style.color);
    if (!color) continue;
    const { layers, html } = element instanceof SVGElement ? svgLayers(element) : { layers: [], html: element };
    const stack = [...layers, ...htmlLayers(html), { r: 255, g: 255, b: 255, a: 1 }];
    let background = stack[stack.length - 1];
    for (const layer of stack.slice(0, -1).reverse()) background = over(layer, background);
    const shown = over(color, background);
    const size = Number.parseFloat(style.fontSize);
    const bold = Number(style.fontWeight) >= 700;
    const needed = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    const value = ratio(shown, background);
    measured++;
    if (value < needed - 0.005)
      failures.push({
        text: own.slice(0, 60),
        element: element.tagName.toLowerCase() + (element.getAttribute('class') ? '.' + element.getAttribute('class').trim().split(/\\s+/).join('.') : ''),
        color: style[element instanceof SVGElement ? 'fill' : 'color'],
        background: 'rgb(' + [background.r, background.g, background.b].map(Math.round).join(', ') + ')',
        ratio: Math.round(value * 100) / 100,
        needed,
      });
  }
  return { failures, measured };
})()`;

/** Every text of the page below WCAG AA contrast, and how many texts were measured. */
export async function contrastFailures(page: Page): Promise<{ failures: ContrastFailure[]; measured: number }> {
  return (await page.evaluate(MEASURE)) as { failures: ContrastFailure[]; measured: number };
}
