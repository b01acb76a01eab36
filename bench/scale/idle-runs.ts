/**
 * Idle runs for the scale benchmark: recorded once from the real runtime (its commits, exactly as
 * it wrote them), then copied under many run ids into a store through the store API, in large
 * batches, each copy with its history, released like a run that went to sleep.
 *
 * Run `i` is a ferrus task when `i` is even: claimed by its executor, whose lease timer (the
 * `deadline` actor) is days away, so the run has a `wakeAt`. Run `i` is a kici execution when `i`
 * is odd: running, waiting for its agent, with no deadline.
 */
import { hostname } from 'node:os';
import { lifecycles } from '../../machines/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';
import {
  plainRow,
  type Commit,
  type CommitLease,
  type OwnerInfo,
  type Store,
  type StoredRun,
} from '../../src/stores/store.js';

export const EXECUTOR = 'executor:claude:1';
const SUPERVISOR = 'supervisor:claude:1';
const DAY_MS = 86_400_000;
/** Tasks whose leases run out on different days, so the timer index holds different instants. */
const TASK_LEASE_DAYS = [2, 3, 5, 8, 13, 21];

/** The seeded runs' owner: no live process (its start time matches none), so no host takes it for one. */
const SEEDER: OwnerInfo = {
  id: 'statewright-scale-seeder',
  pid: process.pid,
  pidStart: 'seeded by bench/scale',
  host: hostname(),
};

export const idleRunId = (i: number) => `idle-${i}`;
export const isTask = (i: number) => i % 2 === 0;

/** The heartbeat an executor sends to keep its claim on a task: the event the benchmark times. */
export const heartbeat = { type: 'heartbeat', agent: EXECUTOR } as const;

/** One recorded run: its commits from creation to where it waits. */
interface Template {
  readonly commits: readonly Commit[];
}

/** A plain, frozen-in-time copy of a commit the runtime handed to its store (its rows compute `snapshot` lazily). */
function recorded(commit: Commit): Commit {
  const { lease: _lease, ...rest } = commit;
  return JSON.parse(JSON.stringify({ ...rest, run: plainRow(commit.run) })) as Commit;
}

/** Drives one run of `machine` with the real runtime and returns the commits it made. */
async function record(
  machine: string,
  input: unknown,
  events: ReadonlyArray<{ type: string; [key: string]: unknown }>,
): Promise<Template> {
  const inner = memoryStore();
  const commits: Commit[] = [];
  // Without `leases`: this runtime hosts the one run it records, it never sleeps.
  const recording: Store = {
    ...inner,
    kind: 'recording',
    async commit(batch) {
      await inner.commit(batch);
      commits.push(...batch.map(recorded));
    },
  };
  // Loose: the machine and its events are given as strings.
  const runtime: Runtime = await createRuntime({ store: recording, machines: lifecycles, recover: false });
  const { runId } = await runtime.start(machine, { id: 'template', input });
  for (const event of events) await runtime.dispatch(runId, event);
  await runtime.close();
  return { commits };
}

async function recordTemplates(): Promise<{ tasks: Template[]; execution: Template }> {
  const tasks = [];
  for (const days of TASK_LEASE_DAYS) {
    tasks.push(
      await record('task', { lease: { ttlMs: days * DAY_MS } }, [
        { type: 'create_task', agent: SUPERVISOR, task: 'Make the flaky test pass' },
        { type: 'claim', agent: EXECUTOR },
      ]),
    );
  }
  const execution = await record('execution', undefined, [{ type: 'ENQUEUE' }, { type: 'START' }]);
  return { tasks, execution };
}

/** `template`'s commits for run `runId`, written by the seeder under `lease`. */
function copyFor(template: Template, runId: string, lease: CommitLease | undefined): Commit[] {
  return template.commits.map((commit) => {
    const run: StoredRun = { ...commit.run, runId, owner: SEEDER };
    return {
      ...commit,
      run,
      ...(commit.event && { event: { ...commit.event, runId } }),
      ...(lease && { lease }),
    };
  });
}

/** The next deadline a template's run was left with: its last commit's `wakeAt`. */
const wakeAtOf = (template: Template): number | null => template.commits.at(-1)!.wakeAt ?? null;

export interface SeedProgress {
  readonly seeded: number;
  readonly seconds: number;
}

/**
 * Adds idle runs `from` to `to - 1` (`idleRunId`) to `store`, `batch` runs per `store.commit`
 * (each run's creation and events in the same batch), then releases their leases as a host does
 * when a run goes to sleep, with each run's `wakeAt`. On a store without leases the runs are
 * committed unleased. Resolves with the rate it seeded at.
 */
export async function seedIdleRuns(
  store: Store,
  from: number,
  to: number,
  options: { batch?: number; onProgress?: (progress: SeedProgress) => void } = {},
): Promise<SeedProgress> {
  const batch = options.batch ?? 5000;
  const { tasks, execution } = await recordTemplates();
  const started = performance.now();
  const templateOf = (i: number) => (isTask(i) ? tasks[(i / 2) % tasks.length]! : execution);
  let lastReport = started;
  for (let first = from; first < to; first += batch) {
    const last = Math.min(to, first + batch);
    const now = Date.now();
    const lease: CommitLease | undefined = store.leases && {
      holder: SEEDER.id,
      epoch: 1,
      expiresAt: now + 600_000,
      now,
    };
    const commits: Commit[] = [];
    const releases: Array<{ runId: string; epoch: number; wakeAt: number | null }> = [];
    for (let i = first; i < last; i++) {
      const template = templateOf(i);
      commits.push(...copyFor(template, idleRunId(i), lease));
      releases.push({ runId: idleRunId(i), epoch: 1, wakeAt: wakeAtOf(template) });
    }
    await store.commit(commits);
    await store.leases?.release(SEEDER.id, releases, { now: Date.now(), handedOver: false });
    const at = performance.now();
    if (options.onProgress && at - lastReport > 5000) {
      lastReport = at;
      options.onProgress({ seeded: last - from, seconds: (at - started) / 1000 });
    }
  }
  return { seeded: to - from, seconds: (performance.now() - started) / 1000 };
}
