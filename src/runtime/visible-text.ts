/** What JSON leaves as it is but a reader cannot see: C1 controls, invisible format characters, line and paragraph separators. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

const escapeUnits = (c: string) =>
  c
    .split('')
    .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .join('');

/**
 * `text` as a quoted JSON string with everything invisible escaped, so a message or a table shows
 * what a run id holds rather than hiding it (or reordering the line around it, as a bidi override would).
 */
export function visibleJson(text: string): string {
  return JSON.stringify(text).replace(INVISIBLE, escapeUnits);
}
