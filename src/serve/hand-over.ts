/**
 * A graceful stop hands the runs over instead of ending them: the agents keep running, and the
 * next host adopts them. The lifecycles' recovery hooks fail a run whose previous owner is dead
 * ("Session orphaned due to daemon restart", "Server crashed"), which is right after a crash but
 * wrong after a hand-over. So the stopping host leaves a record of who it was beside the store, and
 * the next host treats that owner's runs as handed over, not orphaned: their hooks are skipped, and
 * the restored agent actors adopt the running agents (or report how they ended meanwhile).
 *
 * Only for a store without leases (json-file): on one with leases, the stopping host releases each
 * lease as 'handedOver', which tells the next holder the same thing, run by run.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { PRIVATE_FILE_MODE } from '../os/private-files.js';
import type { Lifecycles } from '../../machines/lifecycle.js';

/** What a host that stopped gracefully leaves beside the store. */
export interface HandOverRecord {
  /**
   * The runtime owner ids the runs were handed over by: the stopping host's, and those of earlier
   * hosts whose hand-over it took but whose runs it has not committed to since (a run keeps the
   * owner of its last commit).
   */
  readonly owners: readonly string[];
  /** When, in ms since the epoch. */
  readonly at: number;
}

export function writeHandOver(path: string, record: HandOverRecord): void {
  const temp = `${path}.tmp`;
  writeFileSync(temp, JSON.stringify(record), { mode: PRIVATE_FILE_MODE });
  renameSync(temp, path);
}

/** The record left by the last graceful stop, if any; a damaged one counts as none (its runs are then recovered as orphans). */
export function readHandOver(path: string): HandOverRecord | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const record = JSON.parse(readFileSync(path, 'utf8')) as Partial<HandOverRecord>;
    const owners = Array.isArray(record.owners) ? record.owners.filter((o): o is string => typeof o === 'string') : [];
    return owners.length && typeof record.at === 'number' ? { owners, at: record.at } : undefined;
  } catch {
    return undefined;
  }
}

/** Once the runs are restored, the record has done its work: a later crash must not look like a hand-over. */
export function removeHandOver(path: string): void {
  rmSync(path, { force: true });
}

/** The registry with each recovery hook skipped for the runs the `owners` handed over. */
export function adoptingHandOver(lifecycles: Lifecycles, owners: readonly string[]): Lifecycles {
  if (owners.length === 0) return lifecycles;
  return Object.fromEntries(
    Object.entries(lifecycles).map(([name, lifecycle]) => {
      const recover = lifecycle.recover;
      if (!recover) return [name, lifecycle];
      return [
        name,
        {
          ...lifecycle,
          recover: (run: Parameters<typeof recover>[0]) =>
            run.previousOwner && owners.includes(run.previousOwner.id) ? [] : recover(run),
        },
      ];
    }),
  );
}
