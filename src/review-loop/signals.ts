/**
 * Finding DONE, PASS and FAIL in an agent's final output.
 *
 * agentpair matches upper-cased substrings, so "PASSWORD", "BYPASS" and "COMPASS" pass a review and
 * "ABANDONED" finishes a task. Here a signal is a whole token, matched case-insensitively, that is
 * used as a verdict rather than as a word in a sentence:
 *
 * - whole: not glued to a word ("PASSWORD", "by-pass", "done.txt", "src/done", "$DONE", "--done",
 *   "PASS/FAIL" are not signals);
 * - asserted: not negated ("not done", "didn't pass"), not hypothetical ("would fail", "needs to
 *   pass"), not a question ("DONE?"), not inside a fenced code block (pasted test logs print
 *   PASS and FAIL), and not part of a phrase that means something else ("tests fail" asks for
 *   changes, "well done" approves);
 * - a verdict: written in capitals as signals are (or exactly as a custom done token was
 *   configured), or standing in verdict position (starting its
 *   line, after list markers or a label such as "Verdict:", or ending it). A lower-case word in the
 *   middle of a sentence ("we pass the flag", "I've done the refactor") is prose, not a signal.
 *
 * When several signals are found, the strongest decides (capitals in verdict position, then any case
 * in verdict position, then capitals elsewhere, then phrases), and among equals the last one: agents
 * give their verdict at the end.
 */
import { StatewrightError } from '../errors.js';

export type SignalKind = 'done' | 'pass' | 'fail' | 'changes';

export interface Signal {
  readonly kind: SignalKind;
  /** The words as written in the output. */
  readonly text: string;
  /** Offset of the signal in the output. */
  readonly index: number;
  /** 1-based line of the signal. */
  readonly line: number;
  /** An explicit token (DONE, PASS, FAIL, ...) rather than a phrase ("looks good", "tests fail"). */
  readonly explicit: boolean;
  /** 4 capitals in verdict position, 3 any case in verdict position, 2 capitals elsewhere, 1 a phrase asking for changes, 0 an approving phrase. */
  readonly strength: number;
  /**
   * What the agent said about it. For a token: the rest of its sentence, else the next line, else
   * the words before it. For a phrase: the sentence it stands in.
   */
  readonly reason: string;
}

export interface SignalOptions {
  /** The token an agent prints when its task is done; default "DONE". */
  readonly doneSignal?: string;
}

export const DEFAULT_DONE_SIGNAL = 'DONE';
export const MAX_REASON_LENGTH = 200;

/** A done signal that cannot be matched reliably; says what is wrong with it. */
export class SignalConfigError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'SignalConfigError';
}

interface Term {
  readonly kind: SignalKind;
  readonly text: string;
  /** Counts, as a phrase, even in lower case in the middle of a sentence: it cannot be an ordinary word. */
  readonly unambiguous?: boolean;
}

const EXPLICIT: readonly Term[] = [
  { kind: 'pass', text: 'PASS' },
  { kind: 'pass', text: 'APPROVED' },
  { kind: 'pass', text: 'LGTM', unambiguous: true },
  { kind: 'fail', text: 'FAIL' },
  { kind: 'changes', text: 'REJECTED' },
  { kind: 'changes', text: 'NEEDS CHANGES', unambiguous: true },
  { kind: 'changes', text: 'CHANGES REQUESTED', unambiguous: true },
];

/** Phrases a reviewer uses without a token; they claim their words, so "tests fail" is not a FAIL. */
const APPROVING = [
  'looks good',
  'look good',
  'well done',
  'correctly implemented',
  'works as expected',
  'all tests pass',
  'all tests passed',
  'tests pass',
  'tests passed',
];
const REJECTING = [
  'needs work',
  'needs more work',
  'does not work',
  "doesn't work",
  'tests fail',
  'tests failed',
  'test fails',
  'test failed',
  'incorrect',
  'bug found',
  'issue found',
  'issues found',
];

const WORD = /[\p{L}\p{N}_]/u;
const isWord = (c: string | undefined) => c !== undefined && WORD.test(c);
/** Characters that join words into identifiers, paths and file names. */
const GLUE = new Set(['-', '/', '\\', '.', '=', "'", '’', '+']);
/** Words that make what follows not an assertion: negations and hypotheticals. */
const QUALIFIERS = new Set([
  'not',
  'no',
  'never',
  'nor',
  'cannot',
  'without',
  'hardly',
  'will',
  'would',
  'could',
  'might',
  'may',
  'can',
  'should',
  'must',
  'to',
  'if',
  'unless',
  'whether',
  'once',
]);
const LABEL = String.raw`(?:final\s+)?(?:verdict|status|result|signal|review|decision|outcome|answer|conclusion)`;
const DECOR = String.raw`[*_\x60'"“”]*`;
const VERDICT_PREFIX = new RegExp(
  String.raw`^\s*(?:(?:[#>*_+•-]+|\d+[.)]|\[[ xX]?\])\s*)*(?:${LABEL}${DECOR}\s*[:=\-–—]?${DECOR}\s*)?[*_\x60'"“”(\[]*$`,
  'iu',
);
const VERDICT_SUFFIX = /^[*_`'"“”)\]]*[.!]*[*_`'"“”)\]]*\s*$/u;

export function validateDoneSignal(token: string): string {
  if (typeof token !== 'string' || token.trim() !== token || token.length === 0) {
    throw new SignalConfigError(
      `The done signal must be a non-empty token without surrounding spaces, got ${JSON.stringify(token)}. Use a word such as DONE or TASK_COMPLETE.`,
    );
  }
  if (/[\r\n]/.test(token) || token.length > 100) {
    throw new SignalConfigError(
      `The done signal must be one line of at most 100 characters, got ${JSON.stringify(token.slice(0, 120))}.`,
    );
  }
  if (![...token].some(isWord)) {
    throw new SignalConfigError(
      `The done signal ${JSON.stringify(token)} has no letter or digit, so it cannot be told apart from punctuation. Use a word such as DONE.`,
    );
  }
  const clash = EXPLICIT.find((t) => t.text.toLowerCase() === token.toLowerCase());
  if (clash) {
    throw new SignalConfigError(
      `The done signal ${JSON.stringify(token)} is already the ${clash.kind.toUpperCase()} signal of reviews. Choose another word, such as DONE.`,
    );
  }
  return token;
}

/** Every signal asserted in `output`, in order of appearance. */
export function findSignals(output: string, options: SignalOptions = {}): Signal[] {
  const done = validateDoneSignal(options.doneSignal ?? DEFAULT_DONE_SIGNAL);
  const blocked = fencedBlocks(output);
  const claimed: Array<[number, number]> = [];
  const signals: Signal[] = [];
  const overlaps = (start: number, end: number, ranges: ReadonlyArray<[number, number]>) =>
    ranges.some(([s, e]) => start < e && end > s);

  for (const [phrases, kind] of [
    [REJECTING, 'changes'],
    [APPROVING, 'pass'],
  ] as const) {
    for (const phrase of phrases) {
      for (const { start, end } of occurrences(output, phrase)) {
        if (overlaps(start, end, blocked) || overlaps(start, end, claimed)) continue;
        claimed.push([start, end]);
        if (isQuestion(output, end)) continue;
        const qualified = isQualified(output, start);
        // "not all tests pass" asks for changes; "no tests fail" says nothing.
        if (qualified && kind === 'changes') continue;
        const asserted: SignalKind = qualified ? 'changes' : kind;
        signals.push(signal(output, asserted, start, end, false, asserted === 'changes' ? 1 : 0));
      }
    }
  }

  for (const term of [{ kind: 'done', text: done } as Term, ...EXPLICIT]) {
    for (const { start, end } of occurrences(output, term.text)) {
      if (overlaps(start, end, blocked) || overlaps(start, end, claimed)) continue;
      if (isQuestion(output, end) || isQualified(output, start)) continue;
      const written = output.slice(start, end);
      // Written as configured (a custom token may not be in capitals) or in capitals, as signals are.
      const capitals =
        written === term.text || (written === written.toUpperCase() && written !== written.toLowerCase());
      const position = inVerdictPosition(output, start, end);
      const strength = capitals && position ? 4 : position ? 3 : capitals ? 2 : term.unambiguous ? 1 : -1;
      if (strength < 0) continue; // a word in a sentence
      signals.push(signal(output, term.kind, start, end, strength >= 2, strength));
    }
  }
  return signals.sort((a, b) => a.index - b.index);
}

/** The signal that decides: the strongest, and the last of the strongest. */
export function decisiveSignal(signals: readonly Signal[]): Signal | undefined {
  let best: Signal | undefined;
  for (const s of signals)
    if (!best || s.strength > best.strength || (s.strength === best.strength && s.index >= best.index)) best = s;
  return best;
}

/** The seed's `Result`: which signals an output asserts, and the one that decides. */
export interface SignalResult {
  readonly output: string;
  readonly done: boolean;
  readonly pass: boolean;
  readonly fail: boolean;
  readonly signal: Signal | undefined;
  readonly signals: readonly Signal[];
}

export function detectSignals(output: string, options: SignalOptions = {}): SignalResult {
  const signals = findSignals(output, options);
  const has = (kind: SignalKind) => signals.some((s) => s.kind === kind && s.explicit);
  return { output, done: has('done'), pass: has('pass'), fail: has('fail'), signal: decisiveSignal(signals), signals };
}

function signal(
  output: string,
  kind: SignalKind,
  start: number,
  end: number,
  explicit: boolean,
  strength: number,
): Signal {
  return {
    kind,
    text: output.slice(start, end),
    index: start,
    line: lineOf(output, start),
    explicit,
    strength,
    reason: explicit ? reasonFor(output, start, end) : sentenceAround(output, start, end),
  };
}

/** Compiled once per term (matchAll copies the expression, so sharing one is safe); done tokens are few. */
const patterns = new Map<string, RegExp>();

/** Whole-token, case-insensitive occurrences of `text`; inner spaces match any run of spaces. */
function* occurrences(output: string, text: string): Generator<{ start: number; end: number }> {
  let pattern = patterns.get(text);
  if (!pattern) {
    pattern = new RegExp(text.split(/\s+/).map(escapeRegExp).join(String.raw`[ \t]+`), 'giu');
    patterns.set(text, pattern);
  }
  const checkBefore = isWord(text[0]);
  const checkAfter = isWord(text.at(-1));
  for (const match of output.matchAll(pattern)) {
    const start = match.index;
    const end = start + match[0].length;
    if (checkBefore && gluedBefore(output, start)) continue;
    if (checkAfter && gluedAfter(output, end)) continue;
    yield { start, end };
  }
}

function gluedBefore(text: string, start: number): boolean {
  const before = text[start - 1];
  if (before === undefined) return false;
  if (isWord(before) || before === '$' || before === '@') return true;
  if (before === '-' && text[start - 2] === '-') return true; // a --flag
  return GLUE.has(before) && isWord(text[start - 2]);
}

function gluedAfter(text: string, end: number): boolean {
  const after = text[end];
  if (after === undefined) return false;
  if (isWord(after)) return true;
  return GLUE.has(after) && isWord(text[end + 1]);
}

function isQuestion(text: string, end: number): boolean {
  return /^[*_`'"“”)\]\s]*\?/u.test(text.slice(end, end + 12));
}

/** Whether the last words of the clause before `start` negate or hedge it. */
function isQualified(text: string, start: number): boolean {
  const clause =
    text
      .slice(Math.max(0, start - 120), start)
      .split(/[.!?;:,\n]|\s[-–—]\s|—/u)
      .at(-1) ?? '';
  const words = clause
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/^[*_`'"“”(]+|[*_`'"“”)]+$/gu, ''))
    .filter(Boolean)
    .slice(-3);
  return words.some((w) => QUALIFIERS.has(w) || /n['’]t$/u.test(w));
}

function inVerdictPosition(text: string, start: number, end: number): boolean {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const newline = text.indexOf('\n', end);
  const lineEnd = newline === -1 ? text.length : newline;
  return VERDICT_PREFIX.test(text.slice(lineStart, start)) || VERDICT_SUFFIX.test(text.slice(end, lineEnd));
}

/** Ranges of fenced code blocks (``` or ~~~); an unclosed fence runs to the end. */
function fencedBlocks(text: string): Array<[number, number]> {
  const blocks: Array<[number, number]> = [];
  const fence = /^[ \t]*(`{3,}|~{3,})/gmu;
  let open: { index: number; marker: string } | undefined;
  for (const match of text.matchAll(fence)) {
    const marker = match[1]!;
    if (!open) open = { index: match.index, marker };
    else if (marker[0] === open.marker[0] && marker.length >= open.marker.length) {
      blocks.push([open.index, match.index + match[0].length]);
      open = undefined;
    }
  }
  if (open) blocks.push([open.index, text.length]);
  return blocks;
}

function reasonFor(text: string, start: number, end: number): string {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const newline = text.indexOf('\n', end);
  const lineEnd = newline === -1 ? text.length : newline;
  const after = firstSentence(text.slice(end, lineEnd).replace(/^[*_`'"“”)\]]*\s*[:=\-–—.,!]*[\s*_`'"“”]*/u, ''));
  if (after) return cap(after);
  const next = text
    .slice(lineEnd + 1)
    .split('\n')
    .map((line) => line.replace(/^\s*(?:[#>*_+•-]+|\d+[.)])?\s*/u, '').trim())
    .find((line) => line.length > 0 && !/^(`{3,}|~{3,})/.test(line));
  if (next) return cap(firstSentence(next));
  const before = text
    .slice(lineStart, start)
    .replace(new RegExp(String.raw`${LABEL}${DECOR}\s*[:=\-–—]?${DECOR}\s*$`, 'iu'), '')
    .replace(/[\s*_`'"“”:=\-–—([]+$/u, '')
    .replace(/^\s*(?:[#>*_+•-]+|\d+[.)])?\s*/u, '');
  const sentences = before.split(/(?<=[.!?])\s+/u);
  return cap((sentences.at(-1) ?? '').trim());
}

/** A phrase is its own reason: the sentence it stands in. */
function sentenceAround(text: string, start: number, end: number): string {
  const before = text.slice(0, start);
  const from = Math.max(before.lastIndexOf('\n'), ...[...before.matchAll(/[.!?]\s/gu)].map((m) => m.index + 1)) + 1;
  const rest = text.slice(end);
  const stop = rest.search(/[.!?](?:\s|$)|\n/u);
  return cap(text.slice(from, stop === -1 ? text.length : end + stop).replace(/^[\s*_\x60>#-]+|[\s*_\x60]+$/gu, ''));
}

function firstSentence(text: string): string {
  const match = /^(.*?[^.!?])[.!?](?:\s|$)/u.exec(text.trim());
  return (match ? match[1]! : text.trim().replace(/[.!?]+$/u, ''))
    .trim()
    .replace(/[*_`]+$/u, '')
    .trim();
}

function cap(text: string): string {
  return text.length > MAX_REASON_LENGTH ? `${text.slice(0, MAX_REASON_LENGTH)}…` : text;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
