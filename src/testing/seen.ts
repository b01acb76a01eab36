/**
 * What a run is compared on, in plain XState and in statewright alike: the form a store keeps it
 * (XState's persisted snapshot, as JSON) read as its state value, context, children, status and
 * output.
 */
import type { StateValue } from 'xstate';

export interface Seen {
  readonly value: StateValue;
  readonly context: unknown;
  /** The ids of the children, sorted. */
  readonly children: readonly string[];
  readonly status: string;
  readonly output: unknown;
}

/**
 * A child spawned without an id: XState names it `x:N` from a counter of the whole process (`x:1`
 * only when it is the process's second actor), statewright by the step that spawned it
 * (`x:<seq>.<n>`, the same in every process and in a replay). Such an id is compared by where it
 * first appears in the snapshot, not by its spelling.
 */
const GENERATED_ID = /"x:\d+(?:\.\d+)?"/g;

function generatedIdsByAppearance(json: string): string {
  const names = new Map<string, string>();
  return json.replace(GENERATED_ID, (id) => {
    if (!names.has(id)) names.set(id, `"generated id ${names.size + 1}"`);
    return names.get(id)!;
  });
}

/** What a store would keep of an actor, as JSON: XState's persisted snapshot, read the way `Seen` says. */
export function seenOf(persisted: unknown): Seen {
  const snapshot = JSON.parse(generatedIdsByAppearance(JSON.stringify(persisted))) as {
    value: Seen['value'];
    context?: unknown;
    children?: Record<string, unknown>;
    status: string;
    output?: unknown;
  };
  return {
    value: snapshot.value,
    context: snapshot.context ?? null,
    children: Object.keys(snapshot.children ?? {}).sort(),
    status: snapshot.status,
    output: snapshot.output ?? null,
  };
}

/** JSON with sorted keys: a context built in another order is the same context. */
const canonical = (value: unknown) =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );

/** The parts in which two `Seen` differ, by name ("value", "context"...); empty when they are the same. */
export function seenDifferences(a: Seen, b: Seen): string[] {
  return (['value', 'context', 'children', 'status', 'output'] as const).filter(
    (key) => canonical(a[key]) !== canonical(b[key]),
  );
}
