/**
 * The text an agent's report carries, bounded. A message's or a result's text goes into the run's
 * event log, and a lifecycle that keeps it (a session's `result.text`) into every snapshot after it
 * and into every idempotent event's stored answer: one 1.5 MB reply from a real Claude grew a
 * session's SQLite file by 13-16 MB (issue 32). The agent's log keeps every line whole, so a
 * report needs only enough to read: the start and the end (where an answer, or a reviewer's
 * verdict, usually is), with what was cut and where the whole text is said in between.
 */

/** The most characters a reported text keeps: its first and last halves of this. */
export const REPORTED_TEXT_MAX = 32 * 1024;

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** `text` as reported: unchanged when it fits, else its start and end around a note of the cut. */
export function boundedText(text: string, max = REPORTED_TEXT_MAX): string {
  if (text.length <= max) return text;
  let head = Math.floor(max / 2);
  let tail = text.length - (max - head);
  // Never split a surrogate pair: a character is kept whole or cut whole.
  if (isHighSurrogate(text.charCodeAt(head - 1))) head -= 1;
  if (isHighSurrogate(text.charCodeAt(tail - 1))) tail += 1;
  const cut = tail - head;
  return `${text.slice(0, head)}\n[... ${cut} of ${text.length} characters cut here; the whole text is in the agent's log ...]\n${text.slice(tail)}`;
}
