import { createHash } from 'node:crypto';
import { z } from 'zod';
import { plainRow, type Commit, type EventRecord, type StoredRun } from '../store.js';

/**
 * The files of one run in a json-file store, and the format of its event log. A run's folder
 * holds `snapshot.json` (its latest row), `snapshot.json.bak` (the row before that) and
 * `events.jsonl`, one line per commit. Each line carries the run's new row as well as its event:
 * the log alone can rebuild the run, so a damaged snapshot never costs an acknowledged event.
 */
export const SNAPSHOT = 'snapshot.json';
export const BACKUP = 'snapshot.json.bak';
export const TEMP = 'snapshot.json.tmp';
/** Where a damaged snapshot.json is moved, so the evidence is kept. */
export const DAMAGED = 'snapshot.json.corrupt';
export const LOG = 'events.jsonl';
/** Where bytes cut from the end of the log are kept, so nothing disappears without a trace. */
export const DISCARDED = 'events.jsonl.discarded';

/** One commit as a line of events.jsonl. `run.input` is written on the line that creates the run only: it never changes. */
export interface LogLine {
  readonly seq: number;
  readonly run: StoredRun;
  readonly event?: EventRecord;
  readonly result?: unknown;
}

export interface ParsedLine extends LogLine {
  /** Byte offset of the line in the file, and its length including the newline. */
  readonly offset: number;
  readonly length: number;
}

export interface BadLine {
  readonly offset: number;
  readonly lineNumber: number;
  readonly reason: string;
}

export interface ParsedLog {
  readonly lines: ParsedLine[];
  /** Invalid lines with valid lines after them: damage inside the log. */
  readonly damaged: BadLine[];
  /** Byte offset just past the last valid line. */
  readonly goodEnd: number;
  /** Why the bytes after `goodEnd` are not valid lines (a write cut short, or damage), if there are any. */
  readonly tail: string | undefined;
  /** Seq ranges with no line, between valid lines. */
  readonly gaps: Array<{ from: number; to: number }>;
}

/**
 * The folder a run lives in: the run id with every byte outside [a-z0-9_-] (and a leading dot)
 * percent-encoded, so ids never clash on case-insensitive file systems and never escape `runs/`.
 * Names Windows keeps for devices (`nul`, `aux.txt`, `com1`...) have their first letter encoded too,
 * and a trailing dot (which Windows drops), so every folder can exist there; names that were not
 * reserved are what they always were. Ids too long for a file name get a hash; the id itself is
 * read back from the files, never from the folder name.
 */
export function folderName(runId: string): string {
  let name = '';
  for (const byte of Buffer.from(runId, 'utf8')) {
    const c = String.fromCharCode(byte);
    name +=
      /[a-z0-9_-]/.test(c) || (c === '.' && name.length > 0)
        ? c
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  if (name.length === 0) return '%';
  const safe = windowsSafe(name);
  if (safe.length <= 180) return safe;
  return `${deviceSafe(name).slice(0, 100)}~${createHash('sha256').update(runId).digest('hex').slice(0, 32)}`;
}

/**
 * The folder an older statewright gave a run, as folderName gives it now: only the names Windows
 * keeps for devices differ (`~` is always encoded in a run's part of the name, so it marks a hash).
 */
export function currentFolderName(folder: string): string {
  const hash = folder.indexOf('~');
  if (hash >= 0) return `${deviceSafe(folder.slice(0, hash)).slice(0, 100)}${folder.slice(hash)}`;
  try {
    // A name without a hash decodes to its run's id.
    return folderName(decodeURIComponent(folder));
  } catch {
    return folder;
  }
}

/** Windows' device names, whatever follows a dot (upper case is encoded already, so lower case alone). */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/;

/** `name` with the first letter of a device name encoded; unchanged when it is not one. */
const deviceSafe = (name: string) =>
  WINDOWS_DEVICE.test(name) ? `%${name.charCodeAt(0).toString(16).toUpperCase()}${name.slice(1)}` : name;

/** `name` as a folder Windows can make: a device name's first letter and a trailing dot encoded. Unchanged when already safe. */
function windowsSafe(name: string): string {
  const safe = deviceSafe(name);
  return safe.endsWith('.') ? `${safe.slice(0, -1)}%2E` : safe;
}

const owner = z.object({ id: z.string(), pid: z.number(), pidStart: z.string(), host: z.string() });
const row = z.object({
  runId: z.string(),
  machine: z.string().min(1),
  version: z.number().int(),
  status: z.string(),
  state: z.string(),
  snapshot: z.custom<unknown>((v) => v !== undefined, 'the persisted snapshot is missing'),
  input: z.unknown().optional(),
  seq: z.number().int().nonnegative(),
  owner: owner.optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
const record = z.object({
  runId: z.string(),
  seq: z.number().int().positive(),
  event: z.looseObject({ type: z.string() }),
  at: z.number(),
  actor: z.string().optional(),
  reason: z.string().optional(),
  credential: z.string().optional(),
  idempotencyKey: z.string().optional(),
  before: z.string(),
  after: z.string(),
});
const line = z.object({
  seq: z.number().int().nonnegative(),
  run: row,
  event: record.optional(),
  result: z.unknown().optional(),
});

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.length ? `'${issue.path.join('.')}' ` : ''}${issue.message.toLowerCase()}`;
}

/** Checks a parsed snapshot file; returns why it is not a row of the run in `folder`, or the row. */
export function checkRow(value: unknown, folder: string): { row: StoredRun } | { reason: string } {
  const parsed = row.safeParse(value);
  if (!parsed.success) return { reason: `not a stored run: ${firstIssue(parsed.error)}` };
  const stored = value as StoredRun;
  if (folderName(stored.runId) !== folder)
    return { reason: `it holds run '${stored.runId}', which does not live in this folder` };
  return { row: stored };
}

/** Checks one parsed log line; returns why it is not a commit of the run in `folder`, or the commit. */
export function checkLine(value: unknown, folder: string): LogLine | string {
  const parsed = line.safeParse(value);
  if (!parsed.success) return `not a commit: ${firstIssue(parsed.error)}`;
  const entry = value as LogLine;
  if (entry.run.seq !== entry.seq) return `its row is at seq ${entry.run.seq}, the line says ${entry.seq}`;
  if (entry.event && (entry.event.seq !== entry.seq || entry.event.runId !== entry.run.runId))
    return `its event belongs to run '${entry.event.runId}' seq ${entry.event.seq}`;
  if (folderName(entry.run.runId) !== folder)
    return `it holds run '${entry.run.runId}', which does not live in this folder`;
  return entry;
}

/** The line a commit appends; see LogLine for why the row is on it. */
export function encodeLine(commit: Commit): string {
  const { input, ...rest } = plainRow(commit.run);
  const entry: LogLine = {
    seq: commit.run.seq,
    run: (commit.expectedSeq === undefined ? { ...rest, input: input ?? null } : rest) as StoredRun,
    ...(commit.event && { event: commit.event }),
    ...(commit.result !== undefined && { result: commit.result }),
  };
  return `${JSON.stringify(entry)}\n`;
}

/**
 * Reads a log: every valid line in seq order, the damaged lines between them, and what follows the
 * last valid line. A line is valid when it is complete (ends in a newline), is JSON, has the shape
 * of a commit of this run, and its seq is above the one before.
 */
export function parseLog(bytes: Buffer, folder: string): ParsedLog {
  const lines: ParsedLine[] = [];
  const bad: BadLine[] = [];
  const gaps: Array<{ from: number; to: number }> = [];
  let offset = 0;
  let lineNumber = 0;
  let goodEnd = 0;
  while (offset < bytes.length) {
    const newline = bytes.indexOf(0x0a, offset);
    lineNumber++;
    if (newline === -1) {
      bad.push({
        offset,
        lineNumber,
        reason: `the last ${bytes.length - offset} bytes are an incomplete line (no newline)`,
      });
      break;
    }
    const text = bytes.toString('utf8', offset, newline);
    let entry: LogLine | string;
    try {
      entry = checkLine(JSON.parse(text), folder);
    } catch (error) {
      entry = `not JSON (${(error as Error).message})`;
    }
    const previous = lines.at(-1);
    if (typeof entry !== 'string' && previous && entry.seq <= previous.seq)
      entry = `seq ${entry.seq} does not follow seq ${previous.seq}`;
    if (typeof entry === 'string') {
      bad.push({ offset, lineNumber, reason: entry });
    } else {
      if (previous && entry.seq > previous.seq + 1) gaps.push({ from: previous.seq + 1, to: entry.seq - 1 });
      lines.push({ ...entry, offset, length: newline + 1 - offset });
      goodEnd = newline + 1;
    }
    offset = newline + 1;
  }
  const damaged = bad.filter((b) => b.offset < goodEnd);
  const trailing = bad.filter((b) => b.offset >= goodEnd);
  const tail = trailing.length ? trailing.map((b) => `line ${b.lineNumber}: ${b.reason}`).join('; ') : undefined;
  return { lines, damaged, goodEnd, tail, gaps };
}
