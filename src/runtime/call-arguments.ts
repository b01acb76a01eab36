import { InvalidArgumentError, PayloadTooLargeError } from './errors.js';
import type { SendOptions } from '../actor-contract/run-handle.js';
import type { RunFilter, RunPageQuery } from '../stores/store.js';

/** The statuses an XState snapshot can have: what `list({ status })` filters on. */
export const RUN_STATUSES: readonly string[] = ['active', 'done', 'error', 'stopped'];

/** The longest run id, in UTF-16 code units (JavaScript's `length`): a folder or a key, not a document. */
export const MAX_RUN_ID_LENGTH = 256;

/** What a run id is, as the error for one that is not says it. */
const RUN_ID_RULE = `a name of 1 to ${MAX_RUN_ID_LENGTH} printable characters, not "." or "..", e.g. "build-42" (leave the id out to get a generated one)`;

/**
 * What a run id must not hold: control characters (Cc: C0, DEL, C1), the invisible format
 * characters (Cf: zero-width spaces and joiners, bidi overrides, the BOM, soft hyphens), line and
 * paragraph separators (Zl, Zp) and lone surrogates (Cs, not well-formed Unicode: SQLite, Postgres
 * and file names cannot hold one as given). They make two ids that look alike differ, or one id
 * read differently in a terminal, a log or a URL. Spaces, marks and private-use characters pass.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** Why `id` cannot be a run id, or undefined when it can. */
export function runIdProblem(id: unknown): string | undefined {
  if (typeof id !== 'string') return 'it is not a string';
  if (id.length === 0) return 'it is empty';
  if (id.length > MAX_RUN_ID_LENGTH)
    return `it is ${id.length} characters long, over the limit of ${MAX_RUN_ID_LENGTH}`;
  if (id === '.' || id === '..') return 'it is "." or "..", which a path or a URL reads as a folder, not a name';
  const found = UNPRINTABLE.exec(id);
  if (!found) return undefined;
  const code = found[0].codePointAt(0)!;
  const name = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return `it holds ${name}, ${characterKind(code)}, at index ${found.index}`;
}

function characterKind(code: number): string {
  if (code >= 0xd800 && code <= 0xdfff) return 'a lone surrogate (not well-formed Unicode)';
  if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return 'a control character';
  if (code === 0x2028 || code === 0x2029) return 'a line or paragraph separator';
  return 'an invisible format character';
}

/**
 * A run id a caller chose: a name stores key folders, rows and URLs on (see `runIdProblem` for
 * what is refused). Anything else is `InvalidArgumentError`, before any store is touched.
 */
export function checkRunId(id: unknown): string {
  const problem = runIdProblem(id);
  if (problem !== undefined)
    throw new InvalidArgumentError('run id', id, `${RUN_ID_RULE}; this one is refused because ${problem}`);
  return id as string;
}

/**
 * A start's input as the runtime keeps it: a JSON copy, so the machine starts from exactly what the
 * store holds (and what a restart restores), and the caller may change its object afterwards.
 * One whose JSON is over `maxBytes` is refused (`PayloadTooLargeError`).
 */
export function ownedInput(input: unknown, maxBytes = Infinity): unknown {
  if (input === undefined) return undefined;
  const expected = 'a JSON value (objects, arrays, strings, finite numbers, booleans, null)';
  let text: string | undefined;
  try {
    text = JSON.stringify(input);
  } catch {
    throw new InvalidArgumentError('input', input, expected);
  }
  if (text === undefined) throw new InvalidArgumentError('input', input, expected);
  if (text.length * 3 > maxBytes) {
    const bytes = Buffer.byteLength(text);
    if (bytes > maxBytes) throw new PayloadTooLargeError('input', bytes, maxBytes);
  }
  return JSON.parse(text);
}

/** Send options with the right types; `null` counts as none. */
export function checkSendOptions(options: SendOptions | null): SendOptions | undefined {
  if (options === null) return undefined;
  if (typeof options !== 'object')
    throw new InvalidArgumentError(
      'send options',
      options,
      'an object such as { actor, reason, idempotencyKey, ifAccepted }',
    );
  for (const name of ['actor', 'reason', 'credential', 'idempotencyKey'] as const) {
    const value = options[name];
    if (value !== undefined && (typeof value !== 'string' || value.length === 0))
      throw new InvalidArgumentError(`option '${name}'`, value, 'a non-empty string');
  }
  if (options.ifAccepted !== undefined && typeof options.ifAccepted !== 'boolean')
    throw new InvalidArgumentError("option 'ifAccepted'", options.ifAccepted, 'true or false');
  return options;
}

/** A list filter whose fields are strings, and whose status is one XState has. */
export function checkFilter(filter: RunFilter): RunFilter {
  for (const name of ['machine', 'state'] as const) {
    const value = filter[name];
    if (value !== undefined && typeof value !== 'string')
      throw new InvalidArgumentError(`filter '${name}'`, value, 'a string');
  }
  if (filter.status !== undefined && !RUN_STATUSES.includes(filter.status)) {
    throw new InvalidArgumentError("filter 'status'", filter.status, `one of ${RUN_STATUSES.join(', ')}`);
  }
  return filter;
}

/**
 * A page query (`Runtime.listPage`) with the right types: the filter as `checkFilter` takes it, `q` a
 * string, `limit` a whole number of at least 1, `after` a cursor (a page's `next`). Read field by
 * field into a new object, an empty `q` left out.
 */
export function checkPageQuery(query: RunPageQuery): RunPageQuery {
  if (typeof query !== 'object' || query === null)
    throw new InvalidArgumentError('page query', query, 'an object such as { machine, q, limit: 50, after }');
  const { machine, status, state, q, limit, after } = query;
  const checked: RunPageQuery = { ...checkFilter({ machine, status, state }), limit };
  for (const name of ['machine', 'status', 'state'] as const) if (checked[name] === undefined) delete checked[name];
  if (q !== undefined && typeof q !== 'string')
    throw new InvalidArgumentError("page query 'q'", q, 'a string: part of the run ids to find');
  if (q) checked.q = q;
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new InvalidArgumentError("page query 'limit'", limit, 'a whole number of at least 1');
  if (after !== undefined) {
    if (
      typeof after !== 'object' ||
      after === null ||
      !Number.isSafeInteger(after.createdAt) ||
      typeof after.runId !== 'string'
    )
      throw new InvalidArgumentError(
        "page query 'after'",
        after,
        "the 'next' of the page before: { createdAt: <ms>, runId: <string> }",
      );
    checked.after = { createdAt: after.createdAt, runId: after.runId };
  }
  return checked;
}

/** The JSON size limits of a runtime (`createRuntime({ limits })`), in bytes. */
export interface PayloadLimits {
  /** The largest event a caller may send (default 1 MiB). */
  readonly eventBytes: number;
  /** The largest input a run may be started with (default 1 MiB). */
  readonly inputBytes: number;
}

/** 1 MiB, like the limits of peer workflow engines' payloads. */
export const DEFAULT_PAYLOAD_LIMIT = 1024 * 1024;

/** `createRuntime({ limits })` with its defaults filled in; a limit that is not a positive whole number is refused. */
export function checkLimits(limits: Partial<PayloadLimits> | undefined): PayloadLimits {
  if (limits !== undefined && (limits === null || typeof limits !== 'object'))
    throw new InvalidArgumentError(
      'createRuntime({ limits })',
      limits,
      'an object such as { eventBytes: 1048576, inputBytes: 1048576 }',
    );
  const checked = { eventBytes: DEFAULT_PAYLOAD_LIMIT, inputBytes: DEFAULT_PAYLOAD_LIMIT };
  for (const name of ['eventBytes', 'inputBytes'] as const) {
    const value = limits?.[name];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1)
      throw new InvalidArgumentError(
        `limit '${name}'`,
        value,
        'a positive whole number of bytes, e.g. 1048576 for 1 MiB',
      );
    checked[name] = value;
  }
  return checked;
}
