import { createHash } from 'node:crypto';
import type { Lifecycle } from '../../machines/lifecycle.js';
import type { StoredRun } from '../stores/store.js';
import { StatewrightError } from '../errors.js';

type SnapshotView = { value: unknown; context: any; status: string };

/** Thrown for a query by an index key the lifecycle does not declare. */
export class UnknownIndexKeyError extends StatewrightError {
  readonly kind = 'invalid';
  override readonly name = 'UnknownIndexKeyError';
  constructor(
    readonly machine: string,
    readonly key: string,
    readonly known: readonly string[],
  ) {
    super(
      `Machine '${machine}' declares no index key '${key}' (${known.length ? `it declares ${known.map((k) => `'${k}'`).join(', ')}` : 'it declares none'}). ` +
        `Add it to the lifecycle's \`indexes\` (in \`defineLifecycle\` for a machine of your config).`,
    );
  }
}

/**
 * A run's index keys as stores keep them: sort values in ascending order (a key listed newest
 * first is negated), null where the run is not listed. Undefined when the lifecycle has no index.
 */
export function indexKeys(lifecycle: Lifecycle, snapshot: SnapshotView): Record<string, number | null> | undefined {
  if (!lifecycle.indexes) return undefined;
  const keys: Record<string, number | null> = {};
  for (const [name, key] of Object.entries(lifecycle.indexes)) {
    const value = key.of(snapshot);
    keys[name] = value === null || !Number.isFinite(value) ? null : key.order === 'desc' ? -value : value;
  }
  return keys;
}

/**
 * The same answer as a store's `listByIndex`, by loading every run: for stores without indexes.
 * Order: sort value, then run id.
 */
export function scanByIndex(runs: readonly StoredRun[], lifecycle: Lifecycle, key: string): StoredRun[] {
  const listed: Array<{ run: StoredRun; sort: number }> = [];
  for (const run of runs) {
    const sort = indexKeys(lifecycle, run.snapshot as SnapshotView)?.[key];
    if (sort !== null && sort !== undefined) listed.push({ run, sort });
  }
  listed.sort((a, b) => a.sort - b.sort || (a.run.runId < b.run.runId ? -1 : a.run.runId > b.run.runId ? 1 : 0));
  return listed.map((l) => l.run);
}

/**
 * Names one declaration of a lifecycle's keys: their names, orders and the source of their
 * functions. Any edit to the declaration changes it, so a store indexed under an older one (or
 * none, as runs stored before keys existed) is re-keyed once, when a runtime next starts on it.
 */
export function indexFingerprint(lifecycle: Lifecycle): string | undefined {
  if (!lifecycle.indexes) return undefined;
  const declared = Object.entries(lifecycle.indexes).map(([name, key]) => [name, key.order, String(key.of)]);
  return createHash('sha256').update(JSON.stringify(declared)).digest('hex').slice(0, 16);
}
