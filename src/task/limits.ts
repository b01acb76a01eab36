/**
 * The task lifecycle's settings from `ferrus.toml`: the budgets (`[limits]`), the lease timing
 * (`[lease]`) and the check commands (`[checks]`), with ferrus's defaults. Other sections of the
 * file (ferrus's `[hq]`, `[agents]`, ...) are not ours and are left alone; unknown keys inside our
 * sections are refused, since a misspelt budget would otherwise silently fall back to its default.
 */
import { readFile } from 'node:fs/promises';
import { parse, TomlError } from 'smol-toml';
import { z } from 'zod';
import { StatewrightError } from '../errors.js';

export interface TaskSettings {
  readonly limits: {
    readonly maxCheckRetries: number;
    readonly maxReviewCycles: number;
    /** Lines of each failing command's output kept for the executor. */
    readonly maxFeedbackLines: number;
    readonly waitTimeoutSecs: number;
  };
  readonly lease: { readonly ttlSecs: number; readonly heartbeatIntervalSecs: number };
  readonly checks: { readonly commands: readonly string[] };
}

/** A settings file that cannot be used: which file, and each key with what is wrong with it. */
export class TaskConfigError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'TaskConfigError';
  constructor(
    readonly file: string,
    /** `key` is dotted (`limits.max_check_retries`); undefined when the file as a whole is bad. */
    readonly issues: ReadonlyArray<{ key?: string; problem: string }>,
  ) {
    super(
      issues.length === 1 && issues[0]!.key === undefined
        ? `${file}: ${issues[0]!.problem}`
        : `${file} has ${issues.length === 1 ? 'a bad setting' : `${issues.length} bad settings`}:\n${issues
            .map((i) => `  ${i.key === undefined ? '' : `${describeKey(i.key)}: `}${i.problem}`)
            .join('\n')}`,
    );
  }
}

/** `limits.max_check_retries` as a reader of the file sees it: `[limits] max_check_retries`. */
function describeKey(key: string): string {
  const dot = key.indexOf('.');
  return dot < 0 ? `[${key}]` : `[${key.slice(0, dot)}] ${key.slice(dot + 1)}`;
}

const whole = (min: number) => z.int(`expected a whole number`).min(min, `must be at least ${min}`);

const sections = {
  limits: z.strictObject({
    max_check_retries: whole(1).default(20),
    max_review_cycles: whole(1).default(3),
    max_feedback_lines: whole(0).default(30),
    wait_timeout_secs: whole(1).default(60),
  }),
  lease: z.strictObject({ ttl_secs: whole(1).default(90), heartbeat_interval_secs: whole(1).default(30) }),
  checks: z.strictObject({ commands: z.array(z.string('expected a command line (a string)')).default([]) }),
};

// prefault: a missing section is parsed as {}, so it takes the defaults of its keys.
const schema = z
  .object({
    limits: sections.limits.prefault({}),
    lease: sections.lease.prefault({}).refine((lease) => lease.heartbeat_interval_secs < lease.ttl_secs, {
      path: ['heartbeat_interval_secs'],
      message: 'must be less than ttl_secs, or the lease expires between two heartbeats',
    }),
    checks: sections.checks.prefault({}),
  })
  .loose();

/** The settings when there is no file: ferrus's defaults, no check commands. */
export const DEFAULT_TASK_SETTINGS: TaskSettings = fromParsed(schema.parse({}));

/** Parses the text of a ferrus.toml; `file` names it in errors. Throws `TaskConfigError`. */
export function parseTaskSettings(text: string, file: string): TaskSettings {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const problem = error.message.split('\n')[0]!.trim();
    throw new TaskConfigError(`${file}:${error.line}:${error.column}`, [{ problem: `not valid TOML: ${problem}` }]);
  }
  const result = schema.safeParse(document);
  if (!result.success)
    throw new TaskConfigError(
      file,
      result.error.issues.flatMap((issue) => describeIssue(issue, document)),
    );
  return fromParsed(result.data);
}

/** Reads and parses a ferrus.toml. A missing file gives the defaults; any other failure throws. */
export async function readTaskSettings(file: string): Promise<TaskSettings> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return DEFAULT_TASK_SETTINGS;
    throw new TaskConfigError(file, [{ problem: `cannot be read: ${(error as Error).message}` }]);
  }
  return parseTaskSettings(text, file);
}

function describeIssue(issue: z.core.$ZodIssue, document: unknown): Array<{ key: string; problem: string }> {
  const key = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const known = Object.keys(sections[issue.path[0] as keyof typeof sections].shape);
    return issue.keys.map((unknown) => ({
      key: `${key}.${unknown}`,
      problem: `unknown setting${suggest(unknown, known)}; [${key}] takes ${known.join(', ')}`,
    }));
  }
  const value = issue.path.reduce<unknown>(
    (at, part) => (at as Record<PropertyKey, unknown> | undefined)?.[part],
    document,
  );
  const problem = issue.code === 'invalid_type' && issue.expected === 'object' ? 'expected a table' : issue.message;
  return [{ key, problem: value === undefined ? problem : `${problem}, got ${JSON.stringify(value)}` }];
}

/** " (did you mean max_check_retries?)" when a known key is a small edit away. */
function suggest(key: string, known: readonly string[]): string {
  const close = known.find((k) => distance(k, key) <= 3);
  return close ? ` (did you mean ${close}?)` : '';
}

function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

function fromParsed(parsed: z.output<typeof schema>): TaskSettings {
  return {
    limits: {
      maxCheckRetries: parsed.limits.max_check_retries,
      maxReviewCycles: parsed.limits.max_review_cycles,
      maxFeedbackLines: parsed.limits.max_feedback_lines,
      waitTimeoutSecs: parsed.limits.wait_timeout_secs,
    },
    lease: { ttlSecs: parsed.lease.ttl_secs, heartbeatIntervalSecs: parsed.lease.heartbeat_interval_secs },
    checks: { commands: parsed.checks.commands },
  };
}
