/**
 * `testLifecycle`: a lifecycle's generated paths (`everyPath`), each driven through statewright on
 * its own fresh store and through plain XState, compared after every step, crashed and restored at
 * every commit, verified at the end (`drivePath`). For a test runner, one test per path
 * (`paths` and `expectPath`); for a report, `run`.
 */
import type { Lifecycle } from '../../machines/lifecycle.js';
import type { ActorFactory } from '../actor-contract/run-handle.js';
import { drivePath, type PathResult } from './drive-path.js';
import { everyPath, type EveryPathOptions, type PathSet, type TestPath } from './every-path.js';
import { PathFailedError } from './path-failed-error.js';
import { testStore, type TestStoreOption } from './test-store.js';

export interface TestLifecycleOptions extends EveryPathOptions {
  /** The name runs are started under (default: the lifecycle's own `name`, else `lifecycle`). */
  readonly name?: string;
  /** Where runs are kept, a fresh store per path: `sqlite` (default, in a temporary folder), `json-file`, `memory`, or `(label) => Store`. */
  readonly store?: TestStoreOption;
  /** The real actors statewright runs, by name (the config's `actors` for this lifecycle). */
  readonly actors?: Readonly<Record<string, ActorFactory>>;
  /** Stand-ins answering done or error as each path needs: `true` for every actor the machine names, or these names. The lifecycle's `testActors` apply either way. */
  readonly stubActors?: boolean | readonly string[];
  /** Crash and restore at every commit (default true). */
  readonly crash?: boolean;
  /** How long a real actor has to answer before its path fails (real ms, default 5 000). */
  readonly answerTimeoutMs?: number;
}

export interface LifecycleSummary {
  readonly paths: number;
  readonly steps: number;
  readonly restores: number;
  readonly failures: number;
  readonly ms: number;
}

export interface LifecycleReport extends Omit<PathSet, 'paths'> {
  readonly name: string;
  readonly results: PathResult[];
  readonly summary: LifecycleSummary;
  /** No path failed, every event could be built and every transition was taken. */
  readonly ok: boolean;
}

export interface LifecycleTest extends PathSet {
  readonly name: string;
  /** Drives one path; its failure, if any, is in the result. */
  runPath(path: TestPath): Promise<PathResult>;
  /** Drives one path and throws `PathFailedError` (what XState did, what statewright did) if it fails: one test per path. */
  expectPath(path: TestPath): Promise<PathResult>;
  /** Drives every path, telling `onPath` of each as it ends, and closes. */
  run(onPath?: (result: PathResult, index: number) => void): Promise<LifecycleReport>;
  /** Closes the stores and removes their temporary files. */
  close(): Promise<void>;
}

/** The actors the machine names in `setup({ actors })`, but the runtime's own durable timer. */
const namedActors = (lifecycle: Lifecycle) =>
  Object.keys(lifecycle.machine.implementations.actors ?? {}).filter((name) => name !== 'deadline');

export function testLifecycle(lifecycle: Lifecycle, options: TestLifecycleOptions = {}): LifecycleTest {
  const name = options.name ?? (lifecycle as { name?: string }).name ?? 'lifecycle';
  const set = everyPath(lifecycle, options);
  const stores = testStore(options.store);
  const stubbed =
    options.stubActors === true ? namedActors(lifecycle) : options.stubActors ? [...options.stubActors] : [];
  const runPath = (path: TestPath) =>
    drivePath(
      {
        name,
        lifecycle,
        store: { open: () => stores.open(`${name}-${path.id}`) },
        crash: options.crash ?? true,
        stubbed,
        actors: options.actors ?? {},
        ...(options.answerTimeoutMs !== undefined && { answerTimeoutMs: options.answerTimeoutMs }),
      },
      path,
      `${name}-${path.id}`,
    );
  return {
    name,
    ...set,
    runPath,
    async expectPath(path) {
      const result = await runPath(path);
      if (result.failure) throw new PathFailedError(name, result);
      return result;
    },
    async run(onPath) {
      const started = performance.now();
      const results: PathResult[] = [];
      try {
        for (const path of set.paths) {
          const result = await runPath(path);
          results.push(result);
          onPath?.(result, results.length - 1);
        }
      } finally {
        await stores.close();
      }
      const failures = results.filter((r) => r.failure).length;
      const { paths: _, ...rest } = set;
      return {
        name,
        ...rest,
        results,
        summary: {
          paths: results.length,
          steps: results.reduce((sum, r) => sum + r.steps, 0),
          restores: results.reduce((sum, r) => sum + r.restores, 0),
          failures,
          ms: performance.now() - started,
        },
        ok: failures === 0 && set.unbuildable.length === 0 && set.uncovered.length === 0,
      };
    },
    close: () => stores.close(),
  };
}
