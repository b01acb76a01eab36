/**
 * `statewright test --against-stored`: every live run of a store restored under the current
 * definition, as a deployed host would restore it (migrations, XState's restore), and its paths
 * driven on from there, each on a copy of the store. A run that breaks is named, with why and which
 * migration would carry it: an edit that breaks stored runs is caught before it is deployed.
 */
import { createActor, type AnyMachineSnapshot } from 'xstate';
import type { Lifecycle } from '../../machines/lifecycle.js';
import type { ActorFactory } from '../actor-contract/run-handle.js';
import { migrate } from '../runtime/migrate.js';
import { restoreProblem } from '../runtime/set-aside.js';
import type { Store, StoredRun } from '../stores/store.js';
import { drivePath, type PathResult } from './drive-path.js';
import { everyPath } from './every-path.js';
import { testStore, type TestStoreOption } from './test-store.js';

export interface StoredRunResult {
  readonly runId: string;
  readonly version: number;
  readonly state: string;
  /** Why it does not restore, or restores wrong, under the current definition. */
  readonly broken?: string;
  /** The migration that carries it to the current version, or the one it needs. */
  readonly migration: string;
  /** Its paths from where it is, each on a copy of the store (none when it is broken, or the store cannot be copied). */
  readonly paths: PathResult[];
}

export interface StoredRunsOptions {
  readonly name: string;
  /** A copy of the store for each path, by label (undefined: the runs are only restored, not driven on). */
  readonly copies?: TestStoreOption;
  readonly maxPaths?: number;
  readonly crash?: boolean;
  readonly stubbed?: readonly string[];
  readonly actors?: Readonly<Record<string, ActorFactory>>;
  readonly onRun?: (result: StoredRunResult) => void;
}

/** Which migrations carry a run of `version` to the lifecycle's, or what is missing. */
function migrationFor(version: number, lifecycle: Lifecycle, broken: string | undefined): string {
  const current = lifecycle.version;
  if (version > current) return `none: it was stored by version ${version}, newer than this definition's ${current}`;
  if (version === current)
    return broken
      ? `none: the definition changed under version ${current}; register it as version ${current + 1} with migrations[${current}], which carries the stored snapshot to the new shape`
      : 'none needed';
  const steps = Array.from({ length: current - version }, (_, i) => version + i);
  const missing = steps.filter((v) => !lifecycle.migrations?.[v]);
  if (missing.length) return `none: add ${missing.map((v) => `migrations[${v}] (${v} → ${v + 1})`).join(', ')}`;
  return steps.map((v) => `migrations[${v}] (${v} → ${v + 1})`).join(', then ');
}

/** The fields the current definition's context has that the migrated run's lacks: a migration that dropped one. */
function droppedFields(run: StoredRun, lifecycle: Lifecycle): string[] {
  const migrated = (migrate(run, lifecycle).snapshot as { context?: Record<string, unknown> }).context ?? {};
  let fresh: Record<string, unknown>;
  try {
    fresh = (createActor(lifecycle.machine, { input: run.input as never }).getSnapshot().context ?? {}) as Record<
      string,
      unknown
    >;
  } catch {
    return []; // an input the current definition refuses: restoring says the rest
  }
  return Object.keys(fresh).filter((key) => !(key in migrated));
}

export async function testStoredRuns(
  lifecycle: Lifecycle,
  store: Store,
  options: StoredRunsOptions,
): Promise<StoredRunResult[]> {
  const { name } = options;
  const results: StoredRunResult[] = [];
  const runs = await store.list({ machine: name, status: 'active' });
  const copies = options.copies && testStore(options.copies);
  try {
    for (const run of runs) {
      let broken = restoreProblem(run, { [name]: lifecycle }, Date.now());
      if (!broken) {
        const dropped = droppedFields(run, lifecycle);
        if (dropped.length)
          broken = `its context lacks ${dropped.map((f) => `'${f}'`).join(', ')} after ${run.version === lifecycle.version ? 'its restore' : `the migrations from version ${run.version}`}, which the current definition's context has`;
      }
      const paths: PathResult[] = [];
      if (!broken && copies) {
        const migrated = migrate(run, lifecycle).snapshot;
        const from = createActor(lifecycle.machine, {
          snapshot: migrated as never,
        }).getSnapshot() as AnyMachineSnapshot;
        const set = everyPath(lifecycle, { from, maxPaths: options.maxPaths ?? 10, simplePathLimit: 0 });
        for (const path of set.paths) {
          const label = `${run.runId}-${path.id}`;
          paths.push(
            await drivePath(
              {
                name,
                lifecycle,
                store: { open: () => copies.open(label) },
                crash: options.crash ?? true,
                stubbed: options.stubbed ?? [],
                actors: options.actors ?? {},
                existing: { snapshot: migrated, verify: run.version === lifecycle.version },
              },
              { ...path, input: run.input },
              run.runId,
            ),
          );
        }
      }
      const result: StoredRunResult = {
        runId: run.runId,
        version: run.version,
        state: run.state,
        ...(broken && { broken }),
        migration: migrationFor(run.version, lifecycle, broken),
        paths,
      };
      results.push(result);
      options.onRun?.(result);
    }
  } finally {
    await copies?.close();
  }
  return results;
}
