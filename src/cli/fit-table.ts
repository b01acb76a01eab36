/**
 * A table as a terminal shows it: columns two spaces apart, fitted to `width` (the terminal's, when
 * stdout is one). Piped, it is printed whole, as gh does, so what reads it gets every character.
 * Too wide, the widest column that may shrink gives a character at a time, down to its floor, and
 * its cells lose their middle (an id keeps how it starts and ends) or their end (a note) to "…".
 */

/** How a column's too-long cells are cut: `middle` keeps both ends (ids), `end` the start (text), `never` none. */
export type Cut = 'middle' | 'end' | 'never';

export interface Column {
  readonly header: string;
  readonly cut?: Cut;
  /** Narrower than this it never gets (its header's width if that is more). 10 unless given. */
  readonly min?: number;
}

const GAP = 2;
const ELLIPSIS = '…';

/** The widths the columns get: their widest cell, shrunk widest first until the row fits `width`. */
export function fittedWidths(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  width: number,
): number[] {
  const widths = columns.map((c, i) => Math.max(c.header.length, ...rows.map((r) => r[i]!.length)));
  const floors = columns.map((c, i) =>
    c.cut === 'never' ? widths[i]! : Math.min(widths[i]!, Math.max(c.header.length, c.min ?? 10)),
  );
  let total = widths.reduce((a, b) => a + b, 0) + GAP * (columns.length - 1);
  while (total > width) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++)
      if (widths[i]! > floors[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    if (widest < 0) break;
    widths[widest]!--;
    total--;
  }
  return widths;
}

/** `text` in at most `width` characters, cut as `cut` says. */
export function cutTo(text: string, width: number, cut: Cut = 'end'): string {
  if (text.length <= width || cut === 'never') return text;
  if (width <= 1) return ELLIPSIS.slice(0, width);
  if (cut === 'end') return text.slice(0, width - 1) + ELLIPSIS;
  const head = Math.ceil((width - 1) / 2);
  return text.slice(0, head) + ELLIPSIS + text.slice(text.length - (width - 1 - head));
}

/** The table's lines (header first), each without trailing spaces, fitted to `width` (Infinity: whole). */
export function tableLines(columns: readonly Column[], rows: readonly (readonly string[])[], width: number): string[] {
  const widths = fittedWidths(columns, rows, width);
  return [columns.map((c) => c.header), ...rows].map((row) =>
    row
      .map((cell, i) => cutTo(cell, widths[i]!, columns[i]!.cut).padEnd(widths[i]!))
      .join(' '.repeat(GAP))
      .trimEnd(),
  );
}

/** The width a table printed to stdout fits: the terminal's columns, or none when piped. */
export function terminalWidth(
  stream: { readonly isTTY?: boolean; readonly columns?: number } = process.stdout,
): number {
  return stream.isTTY && stream.columns ? stream.columns : Number.POSITIVE_INFINITY;
}
