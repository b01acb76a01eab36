/**
 * A crash at every commit boundary of every generated path, for every lifecycle, on SQLite,
 * json-file and Postgres: the host dies before the commit is durable and, separately, right after
 * it is durable but before it is acknowledged; a fresh runtime restarts on the same store. Each run
 * must be at the step before or at the step itself (or where its lifecycle's recovery hook takes
 * it), replay to its stored snapshot, go on to the end of its path, and its actors' side effects
 * must have happened once per committed step that causes them, never twice. See crash-boundary.ts.
 *
 * The death is in process (a store that stops answering, see test/support/dying-store.ts); real
 * SIGKILLs at reported boundaries are in crash-boundary-kill.test.ts.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { lifecycles, type LifecycleName } from '../../machines/index.js';
import { jsonFileStore, postgresStore, sqliteStore, type CorruptionReport } from '../../src/stores/index.js';
import { dropSchema, freshSchema, requirePostgres, skipPostgres, url } from '../stores/test-postgres.js';
import { testDir } from '../stores/temp-dir.js';
import { commitBoundaries, type Boundary, type BoundarySelection } from './commit-boundaries.js';
import { crashBoundaries, type BoundaryTally, type StoreUnderTest } from './crash-boundary.js';
import { transitionCoveringPaths } from './harness.js';
import { lifecycleModels } from './lifecycles/index.js';
import { modelInputs } from './lifecycles/model.js';

const names = Object.keys(lifecycles) as LifecycleName[];

/**
 * Every transition of every lifecycle is crashed at, both ways, on every store (`transition`). The
 * full product, every distinct committed prefix of every path (`prefix`, about 1,400 boundaries,
 * several minutes per store), runs with STATEWRIGHT_CRASH_BOUNDARIES=prefix.
 */
const selection: BoundarySelection = process.env.STATEWRIGHT_CRASH_BOUNDARIES === 'prefix' ? 'prefix' : 'transition';

/** Generated once for the three stores. */
let generated: Map<LifecycleName, Boundary[]> | undefined;
function boundariesOf(name: LifecycleName): Boundary[] {
  generated ??= new Map();
  let boundaries = generated.get(name);
  if (!boundaries) {
    const machine: AnyStateMachine = lifecycles[name].machine;
    const model = lifecycleModels[name];
    const runs = modelInputs(model).map((input) => ({ input, paths: transitionCoveringPaths(machine, { samples: model.samples, input, contextKey: model.contextKey }) }));
    boundaries = commitBoundaries(machine, runs, selection);
    generated.set(name, boundaries);
  }
  return boundaries;
}

function fileStores(reports: CorruptionReport[]): Record<string, StoreUnderTest> {
  return {
    sqlite: {
      location: (label) => join(testDir(`boundary-${label}`), 'state.db'),
      open: (location) => sqliteStore(location, { synchronous: 'NORMAL' }),
    },
    'json-file': {
      location: (label) => join(testDir(`boundary-${label}`), 'store'),
      open: (location) => jsonFileStore(location, { onCorruption: (report) => reports.push(report) }),
    },
  };
}

const postgres: StoreUnderTest = {
  location: () => (requirePostgres(), freshSchema()),
  open: (schema) => postgresStore({ connectionString: url, schema }),
  dispose: (schema) => dropSchema(schema),
};

const table: Array<{ store: string; lifecycle: string; deaths: number } & BoundaryTally> = [];

describe('a crash at every commit boundary of every generated path', () => {
  const reports: CorruptionReport[] = [];
  const stores: Record<string, StoreUnderTest> = { ...fileStores(reports), ...(!skipPostgres && { postgres }) };
  for (const [storeName, kind] of Object.entries(stores)) {
    it(`${storeName}: each run is at the step before or at it (or where its recovery takes it), replays, goes on, and its effects happen once`, { timeout: 120_000 }, async () => {
      const failures: string[] = [];
      for (const name of names) {
        const boundaries = boundariesOf(name);
        const row = { store: storeName, lifecycle: name, deaths: 0, boundaries: 0, recovered: 0, continued: 0, effects: 0 };
        for (const death of ['before-durable', 'after-durable'] as const) {
          const result = await crashBoundaries(name, boundaries, death, kind);
          failures.push(...result.failures);
          row.deaths++;
          for (const key of ['boundaries', 'recovered', 'continued', 'effects'] as const) row[key] += result.tally[key];
        }
        table.push(row);
        expect(row.boundaries).toBe(2 * boundaries.length);
      }
      expect(failures.slice(0, 20), `${failures.length} failures`).toEqual([]);
      // An in-process death tears no file: a json-file store has nothing to repair.
      expect(reports).toEqual([]);
    });
  }

  afterAll(() => {
    if (!table.length) return;
    console.log(
      `Crash at every commit boundary, one per ${selection === 'transition' ? 'transition of each machine, and the start' : 'distinct committed prefix of every path'} ` +
        `(each boundary twice: before the commit is durable, and after it but before it is acknowledged)\n` +
        `store      lifecycle    boundaries  recovered  continued  effects\n` +
        table.map((r) => `${r.store.padEnd(10)} ${r.lifecycle.padEnd(12)} ${String(r.boundaries).padStart(10)} ${String(r.recovered).padStart(10)} ${String(r.continued).padStart(10)} ${String(r.effects).padStart(8)}`).join('\n'),
    );
  });
});
