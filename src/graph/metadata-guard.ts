import type { z } from 'zod';
import { StatewrightError } from '../errors.js';

/**
 * Raised when an event's metadata fails the schema that guards its transition. Names every missing
 * field and every present-but-wrong one, so the caller knows exactly what to send.
 */
export class MetadataValidationError extends StatewrightError {
  readonly kind = 'invalid';
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

/**
 * For events that name the edge they ask for in their payload (`{ type: 'MOVED', from: 'a', to: 'b' }`)
 * instead of in their type: how to read those names, and the state the guarded transition leaves.
 */
export interface NamedEdge {
  readonly source: string;
  readonly read: (event: any) => { from: unknown; to: unknown };
}

export interface MetadataGuardOptions {
  /** The guard's name in transition tables and diagrams. */
  readonly name?: string;
  /**
   * The event names its edge: the guard passes only for events naming exactly this transition
   * (`namedEdge.source` to the guard's target), so one event type can drive many transitions.
   */
  readonly namedEdge?: NamedEdge;
}

interface MetadataGuardSpec {
  schema: z.ZodType;
  target: string;
  select: MetadataSelector;
  namedEdge?: NamedEdge;
}

/**
 * Picks what the schema checks. It sees the run's context too, for rules such as "must name a
 * pending approval", so that a refusal can say which value was wrong and why.
 */
export type MetadataSelector = (event: any, context: any) => unknown;

const specs = new WeakMap<Function, MetadataGuardSpec>();

function namesOtherEdge(spec: MetadataGuardSpec, event: unknown): boolean {
  if (!spec.namedEdge) return false;
  const { from, to } = spec.namedEdge.read(event);
  return from !== spec.namedEdge.source || to !== spec.target;
}

/**
 * A transition guard that passes when `schema` accepts the event's metadata (the whole event, or
 * what `select` picks from the event and the context). The schema stays attached, so a refusal can
 * be explained field by field (`explainRejection`) instead of being silently ignored as XState would.
 */
export function metadataGuard<T>(
  schema: z.ZodType<T>,
  target: string,
  select: MetadataSelector = (event) => event,
  options: MetadataGuardOptions = {},
) {
  const spec: MetadataGuardSpec = {
    schema,
    target,
    select,
    ...(options.namedEdge && { namedEdge: options.namedEdge }),
  };
  const guard = ({ context, event }: { context?: any; event: any }) =>
    !namesOtherEdge(spec, event) && schema.safeParse(select(event, context)).success;
  Object.defineProperty(guard, 'name', { value: options.name ?? `${target} metadata` });
  specs.set(guard, spec);
  return guard;
}

/**
 * The error that says why `event` fails the metadata guard `guard`, or undefined if it passes, is
 * not a metadata guard, or speaks for another edge than the one the event names.
 */
export function metadataGuardFailure(
  guard: unknown,
  event: unknown,
  context?: unknown,
): MetadataValidationError | undefined {
  const spec = typeof guard === 'function' ? specs.get(guard) : undefined;
  if (!spec || namesOtherEdge(spec, event)) return undefined;
  const value = spec.select(event, context);
  const result = spec.schema.safeParse(value);
  if (result.success) return undefined;
  return metadataErrorFromIssues(spec.target, value, result.error.issues);
}

/** The named edge a metadata guard speaks for, with its target, if it was made with `namedEdge`. */
export function namedEdgeOf(guard: unknown): (NamedEdge & { target: string }) | undefined {
  const spec = typeof guard === 'function' ? specs.get(guard) : undefined;
  return spec?.namedEdge && { ...spec.namedEdge, target: spec.target };
}

/**
 * A lifecycle's input, checked against its schema: the parsed input, or MetadataValidationError
 * naming every missing or wrong field ("Codon input is not valid: missing runId, workTree. Start the
 * codon again with these fields set."). No input at all, or one that is not an object, names every
 * field the schema requires.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  lifecycle: string,
  target: string,
): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  let value = input;
  let issues = parsed.error.issues;
  const notAnObject = input === null || typeof input !== 'object' || Array.isArray(input);
  if (notAnObject) {
    const empty = schema.safeParse({});
    if (!empty.success) [value, issues] = [{}, empty.error.issues];
  }
  const error = metadataErrorFromIssues(target, value, issues);
  const problems = [
    notAnObject && input !== undefined ? `input must be an object, got ${JSON.stringify(input) ?? typeof input}` : '',
    error.missing.length ? `missing ${error.missing.join(', ')}` : '',
    ...error.invalid.map((i) => `${i.field}: ${i.problem}`),
  ];
  const message = `${lifecycle} input is not valid: ${problems.filter(Boolean).join('; ')}. Start the ${lifecycle.toLowerCase()} again with these fields set.`;
  throw new MetadataValidationError(target, error.missing, error.invalid, message);
}

/** Splits zod issues into fields that are absent and fields that are present but wrong. */
export function metadataErrorFromIssues(
  target: string,
  value: unknown,
  issues: readonly z.core.$ZodIssue[],
): MetadataValidationError {
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

/** The schema a metadata guard checks and the state its transition leads to, or undefined for any other guard. */
export function metadataGuardSchema(
  guard: unknown,
): { readonly schema: z.ZodType; readonly target: string; readonly select: MetadataSelector } | undefined {
  const spec = typeof guard === 'function' ? specs.get(guard) : undefined;
  return spec && { schema: spec.schema, target: spec.target, select: spec.select };
}
