import type { z } from 'zod';

/**
 * Raised when an event's metadata fails the schema that guards its transition. Names every missing
 * field and every present-but-wrong one, so the caller knows exactly what to send.
 */
export class MetadataValidationError extends Error {
  override readonly name = 'MetadataValidationError';
  constructor(
    /** The state the transition leads to. */
    readonly target: string,
    readonly missing: readonly string[],
    readonly invalid: ReadonlyArray<{ field: string; problem: string }>,
    message?: string,
  ) {
    super(
      message ??
        `Metadata for '${target}' is not valid: ${[
          missing.length ? `missing ${missing.join(', ')}` : '',
          ...invalid.map((i) => `${i.field}: ${i.problem}`),
        ]
          .filter(Boolean)
          .join('; ')}. Send the event again with these fields set.`,
    );
  }
}

interface MetadataGuardSpec {
  schema: z.ZodType;
  target: string;
  select: MetadataSelector;
}

/**
 * Picks what the schema checks. It sees the run's context too, for rules such as "must name a
 * pending approval", so that a refusal can say which value was wrong and why.
 */
export type MetadataSelector = (event: any, context: any) => unknown;

const specs = new WeakMap<Function, MetadataGuardSpec>();

/**
 * A transition guard that passes when `schema` accepts the event's metadata (the whole event, or
 * what `select` picks from it and the context). The schema stays attached, so a refusal can be
 * explained field by field (`explainRejection`) instead of being silently ignored as XState would.
 */
export function metadataGuard<T>(schema: z.ZodType<T>, target: string, select: MetadataSelector = (event) => event) {
  const guard = ({ event, context }: { event: any; context?: any }) => schema.safeParse(select(event, context)).success;
  specs.set(guard, { schema, target, select });
  return guard;
}

/** The error that says why `event` fails the metadata guard `guard`, or undefined if it passes. */
export function metadataGuardFailure(guard: unknown, event: unknown, context?: unknown): MetadataValidationError | undefined {
  const spec = typeof guard === 'function' ? specs.get(guard) : undefined;
  if (!spec) return undefined;
  const value = spec.select(event, context);
  const result = spec.schema.safeParse(value);
  if (result.success) return undefined;
  return metadataErrorFromIssues(spec.target, value, result.error.issues);
}

/** Splits zod issues into fields that are absent and fields that are present but wrong. */
export function metadataErrorFromIssues(target: string, value: unknown, issues: readonly z.core.$ZodIssue[]): MetadataValidationError {
  const missing: string[] = [];
  const invalid: Array<{ field: string; problem: string }> = [];
  for (const issue of issues) {
    const field = issue.path.map(String).join('.') || '(metadata)';
    if (at(value, issue.path) === undefined) missing.push(field);
    else invalid.push({ field, problem: issue.message });
  }
  return new MetadataValidationError(target, missing, invalid);
}

function at(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
