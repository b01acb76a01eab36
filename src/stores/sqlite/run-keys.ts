import type Database from 'better-sqlite3';
import { DELETE_KEYS_OF_MACHINE, SET_KEY_SET, type Statements } from './statements.js';
import type { RunRow } from './sqlite-rows.js';
import type { Commit, StoredRun } from '../store.js';

/**
 * The index keys lifecycles derive from their snapshots (`Commit.keys`), one row of `run_keys` per
 * run and key, written in the same transaction as the run's step: a key set to null is removed.
 */
export function writeKeys(statements: Statements, run: StoredRun, keys: Commit['keys']): void {
  if (!keys) return;
  for (const key in keys) {
    const sort = keys[key];
    if (sort === null || sort === undefined) statements.deleteKey.run(run.runId, key);
    else statements.upsertKey.run(run.runId, key, run.machine, sort);
  }
}

/**
 * `Store.syncIndex` as a transaction: every run of `machine` keyed anew by `keysOf` (its current
 * row, read by `current`), unless `run_key_sets` says its keys are of this `fingerprint` already.
 * Returns how many runs it keyed.
 */
export function reindexing(
  db: Database.Database,
  statements: Statements,
  current: (row: RunRow) => StoredRun,
): Database.Transaction<
  (machine: string, fingerprint: string, keysOf: (run: StoredRun) => Readonly<Record<string, number | null>>) => number
> {
  return db.transaction(
    (machine: string, fingerprint: string, keysOf: (run: StoredRun) => Readonly<Record<string, number | null>>) => {
      if (statements.keySetOf.get(machine)?.fingerprint === fingerprint) return 0;
      db.prepare(DELETE_KEYS_OF_MACHINE).run(machine);
      let count = 0;
      for (const row of statements.runsOfMachine.all(machine)) {
        const keys = keysOf(current(row));
        for (const key in keys)
          if (keys[key] !== null && keys[key] !== undefined)
            statements.upsertKey.run(row.run_id, key, machine, keys[key]);
        count++;
      }
      db.prepare(SET_KEY_SET).run(machine, fingerprint);
      return count;
    },
  );
}
