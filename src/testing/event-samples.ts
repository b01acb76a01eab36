/**
 * The events a generated path sends, with their payloads: the lifecycle's `testEvents` where it
 * gives them, else built from its event schemas (`eventSchemas`) and from what the machine's
 * metadata guards ask (`acceptedEvents`). An event the generator cannot build (a sender's role, a
 * pattern, a guard with no schema) is noted, with why, for the report: never silently skipped.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { z } from 'zod';
import type { Lifecycle } from '../../machines/lifecycle.js';
import { acceptedEvents } from '../graph/event-needs.js';
import { currentStateName } from '../graph/explain-rejection.js';
import type { EventSamples } from './paths.js';
import { sampleOfSchema } from './sample-of-schema.js';

/** An event type the generator could not build a payload for, where it first met it, and why. */
export interface UnbuildableEvent {
  readonly type: string;
  readonly state: string;
  readonly reason: string;
}

const given = (lifecycle: Lifecycle, type: string, snapshot: AnyMachineSnapshot): EventObject[] | undefined => {
  const events = lifecycle.testEvents;
  if (typeof events === 'function') {
    const listed = events(type, snapshot);
    return listed.length ? listed : undefined;
  }
  const entry = events?.[type];
  if (entry === undefined) return undefined;
  return typeof entry === 'function' ? entry(snapshot) : [...entry];
};

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> | undefined {
  try {
    return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The samples function for path generation, and the events it could not build. */
export function lifecycleSamples(lifecycle: Lifecycle): {
  samples: EventSamples;
  unbuildable: () => UnbuildableEvent[];
} {
  const problems = new Map<string, UnbuildableEvent>();
  const note = (type: string, snapshot: AnyMachineSnapshot, reason: string) => {
    if (!problems.has(type)) problems.set(type, { type, state: currentStateName(snapshot), reason });
    return [];
  };
  const samples: EventSamples = (type, snapshot) => {
    const listed = given(lifecycle, type, snapshot);
    if (listed) return listed;
    if (type.startsWith('xstate.')) return [];
    const schema = lifecycle.eventSchemas?.[type];
    const needs = acceptedEvents(snapshot).find((event) => event.type === type)?.needs;
    if (needs?.roles)
      return note(
        type,
        snapshot,
        `its guard takes it only from ${needs.roles.map((r) => `'${r}'`).join(' or ')}, named in '${needs.fields.join(', ')}': give it in testEvents`,
      );
    const payload: Record<string, unknown> = {};
    for (const [source, json] of [
      ['the metadata guard', needs?.schema],
      ['its event schema', schema && jsonSchemaOf(schema)],
    ] as const) {
      if (!json) continue;
      const sample = sampleOfSchema(json);
      if (!sample || sample.value === null || typeof sample.value !== 'object')
        return note(type, snapshot, `no payload could be built from ${source}: give it in testEvents`);
      Object.assign(payload, sample.value);
    }
    if (schema === undefined && needs && needs.schema === undefined && needs.fields.length > 0)
      return note(type, snapshot, `it needs ${needs.fields.join(', ')} and no schema says what: give it in testEvents`);
    const { type: _, ...fields } = payload;
    return Object.keys(fields).length ? [{ ...fields, type }] : [];
  };
  return { samples, unbuildable: () => [...problems.values()] };
}
