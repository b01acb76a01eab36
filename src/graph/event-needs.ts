import type { AnyMachineSnapshot } from 'xstate';
import type { z } from 'zod';
import { metadataGuardSchema, type MetadataSelector } from './metadata-guard.js';
import { roleGuardRoles } from './role-guard.js';
import { isOutsideEvent } from './event-words.js';
import { activeStateNodes, higherOrderGuard } from './xstate-internals.js';

/** What an event must carry to be taken: the fields its metadata schema requires, the schema, the roles its guard admits. */
export interface EventNeeds {
  readonly fields: string[];
  /** `z.toJSONSchema` of the metadata schema (absent when the transition has none, or it cannot be expressed). */
  readonly schema?: Record<string, unknown>;
  readonly roles?: string[];
}

/** One event the snapshot's state accepts (given the right payload), with what it needs. */
export interface AcceptedEvent {
  readonly type: string;
  readonly needs: EventNeeds;
}

/** Stamped by the runtime on every event, so nobody has to send them. */
const STAMPED = new Set(['type', 'at']);

/**
 * The events a sender can send that the snapshot's active states have a transition for (XState's
 * forbidden transitions and its own events excluded: those are `ownMoves`), in the order XState
 * evaluates them, each with what its guards ask of the payload: read from metadata guards
 * (`metadataGuard`) and role guards (`roleGuard`), looking into guards referenced by name and
 * combined with `and`/`or`. Guards that depend on the context alone (a
 * budget, a lease) are not evaluated: an event listed here may still be refused, with its reason.
 */
export function acceptedEvents(snapshot: AnyMachineSnapshot): AcceptedEvent[] {
  return acceptedTransitions(snapshot).map(([type, transitions]) => {
    const entry: Needs = { fields: new Set(), roles: new Set() };
    for (const transition of transitions) collect(transition.guard, snapshot, type, entry, 0);
    return {
      type,
      needs: {
        fields: [...entry.fields],
        ...(entry.schema && { schema: entry.schema }),
        ...(entry.roles.size > 0 && { roles: [...entry.roles] }),
      },
    };
  });
}

/** The types of `acceptedEvents`, without reading what each needs: what a refusal lists. */
export function acceptedEventTypes(snapshot: AnyMachineSnapshot): string[] {
  return acceptedTransitions(snapshot).map(([type]) => type);
}

interface Needs {
  fields: Set<string>;
  schema?: Record<string, unknown>;
  roles: Set<string>;
}

/**
 * Each event type a sender can send with its transitions, innermost state first (XState's order):
 * forbidden ones, wildcards and the events XState makes for the machine (delays, done, error and
 * snapshot events: `ownMoves`) left out.
 */
function acceptedTransitions(snapshot: AnyMachineSnapshot): Array<[string, Array<{ guard?: unknown }>]> {
  if (snapshot.status !== 'active') return [];
  const byType = new Map<string, Array<{ guard?: unknown }>>();
  // Innermost states come last in `activeStateNodes` but are evaluated first: list them first.
  for (const node of [...activeStateNodes(snapshot)].reverse()) {
    for (const [type, transitions] of node.transitions) {
      if (!isOutsideEvent(type)) continue;
      for (const transition of transitions) {
        if (transition.target === undefined && transition.actions.length === 0) continue;
        byType.set(type, [...(byType.get(type) ?? []), transition]);
      }
    }
  }
  return [...byType.entries()];
}

function collect(guard: unknown, snapshot: AnyMachineSnapshot, type: string, into: Needs, depth: number): void {
  if (guard === undefined || depth > 32) return;
  const name =
    typeof guard === 'string'
      ? guard
      : typeof guard === 'object' && guard !== null && typeof (guard as { type?: unknown }).type === 'string'
        ? (guard as { type: string }).type
        : undefined;
  if (name !== undefined) {
    collect(snapshot.machine.implementations.guards[name], snapshot, type, into, depth + 1);
    return;
  }
  const roles = roleGuardRoles(guard);
  if (roles) {
    for (const role of roles.allowed) into.roles.add(role);
    if (roles.field) into.fields.add(roles.field);
  }
  const metadata = metadataGuardSchema(guard);
  if (metadata) {
    const schema = jsonSchemaOf(metadata.schema, suppliedFields(metadata.select, type, snapshot.context));
    if (schema) {
      into.schema ??= schema;
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      for (const field of required) if (field !== 'type') into.fields.add(field);
    }
  }
  const combined = higherOrderGuard(guard);
  // `not` asks for the absence of what its part needs: nothing to send.
  if (combined && combined.kind !== 'not')
    for (const part of combined.parts) collect(part, snapshot, type, into, depth + 1);
}

/**
 * The fields a metadata guard's selector adds from the run's context (the pending approvals a
 * schema checks an id against) and the ones the runtime stamps: the sender does not send them.
 */
function suppliedFields(select: MetadataSelector, type: string, context: unknown): Set<string> {
  const supplied = new Set(STAMPED);
  try {
    const probe = select({ type }, context);
    if (probe !== null && typeof probe === 'object') for (const key of Object.keys(probe)) supplied.add(key);
  } catch {
    // A selector that needs a real event adds nothing we can see.
  }
  return supplied;
}

/**
 * The JSON Schema of what the sender sends, without the fields it does not send; undefined for a
 * schema JSON Schema cannot say (custom checks and transforms are left out of it).
 */
function jsonSchemaOf(schema: z.ZodType, supplied: Set<string>): Record<string, unknown> | undefined {
  let json: Record<string, unknown>;
  try {
    // The schema's own method (zod 4's classic schemas): the zod that made it, and none loaded by a
    // command that never explains an event (zod is the largest module the CLI compiles).
    json = schema.toJSONSchema({ io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const { $schema: _, ...rest } = json;
  const properties = rest.properties as Record<string, unknown> | undefined;
  if (properties)
    rest.properties = Object.fromEntries(
      Object.entries(properties).filter(([key]) => !supplied.has(key) || key === 'type'),
    );
  if (Array.isArray(rest.required))
    rest.required = (rest.required as string[]).filter((key) => !supplied.has(key) || key === 'type');
  return rest;
}
