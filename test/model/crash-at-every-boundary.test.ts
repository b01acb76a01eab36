/**
 * A crash at the commit boundaries of the generated paths, for every lifecycle, on SQLite,
 * json-file and Postgres (by default one boundary per transition of each machine, and the start;
 * every distinct committed prefix of every path with STATEWRIGHT_CRASH_BOUNDARIES=prefix): the host dies before the commit is durable and, separately, right after
 * it is durable but before it is acknowledged; a fresh runtime restarts on the same store. Each run
 * must be at the step before or at the step itself (or where its lifecycle's recovery hook takes
 * it), replay to its stored snapshot, go on to the end of its path, and its actors' side effects
 * must have happened once per committed step that causes them, never twice. See crash-boundary.ts.
 *
 * The death is in process (a store that stops answering, see test/support/dying-store.ts); real
 * SIGKILLs at reported boundaries are in crash-boundary-kill.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { lifecycles, type LifecycleName } from '../../machines/index.js';
import type { CorruptionReport } from '../../src/stores/index.js';
import { storesUnderTest } from './boundary-stores.js';
import { lifecycleBoundaries, type BoundarySelection } from './commit-boundaries.js';
import { crashBoundaries, type BoundaryTally } from './crash-boundary.js';

const names = Object.keys(lifecycles) as LifecycleName[];

/**
 * Every transition of every lifecycle is crashed at, both ways, on every store (`transition`). The
 * full product, every distinct committed prefix of every path (`prefix`, about 1,400 boundaries,
 * several minutes per store), runs with STATEWRIGHT_CRASH_BOUNDARIES=prefix.
 */
const selection: BoundarySelection = process.env.STATEWRIGHT_CRASH_BOUNDARIES === 'prefix' ? 'prefix' : 'transition';

const table: Array<{ store: string; lifecycle: string; deaths: number } & BoundaryTally> = [];

describe('a crash at the commit boundaries of the generated paths', () => {
  const reports: CorruptionReport[] = [];
  const stores = storesUnderTest(reports);
  for (const [storeName, kind] of Object.entries(stores)) {
    it(`${storeName}: each run is at the step before or at it (or where its recovery takes it), replays, goes on, and its effects happen once`, {
      timeout: selection === 'prefix' ? 1_800_000 : 120_000,
    }, async () => {
      const failures: string[] = [];
      for (const name of names) {
        const boundaries = lifecycleBoundaries(name, selection);
        const row = {
          store: storeName,
          lifecycle: name,
          deaths: 0,
          boundaries: 0,
          recovered: 0,
          continued: 0,
          effects: 0,
        };
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
        table
          .map(
            (r) =>
              `${r.store.padEnd(10)} ${r.lifecycle.padEnd(12)} ${String(r.boundaries).padStart(10)} ${String(r.recovered).padStart(10)} ${String(r.continued).padStart(10)} ${String(r.effects).padStart(8)}`,
          )
          .join('\n'),
    );
  });
});
