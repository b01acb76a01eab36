/**
 * The corpus through `statewright serve`, as a user runs it: every hostable machine registered in one
 * statewright.config.ts (defineLifecycle), each path driven through the HTTP API, serve killed with
 * SIGKILL with every run mid-path and started again, the paths taken on to their end. After every
 * step, and after the restart, what serve committed (read from its SQLite store) equals what plain
 * XState holds after the same events; at the end every run's log replays to it (`verify`). Paths
 * that move the clock are left to the in-process comparison (runtime-vs-xstate.test.ts), which
 * restores after every step on a clock of its own: serve runs on the wall clock.
 */
import { expect, it } from 'vitest';
import { verifyRun } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import type { Store } from '../../src/stores/store.js';
import { testDir } from '../stores/temp-dir.js';
import { api, type ServeProcess, startServeProcess } from '../support/serve-process.js';
import { writeCorpusConfig } from './corpus-config.js';
import {
  describeStep,
  type ForeignMachine,
  type ForeignPath,
  hostableMachines,
  type Persisted,
  type Settled,
} from './corpus.js';
import { notYet } from './not-yet.js';
import { corpusLifecycles } from './run-on-runtime.js';
import { seenOf, XStateRun } from './run-on-xstate.js';
import { StepWatch } from './step-watch.js';

interface Drive {
  readonly entry: ForeignMachine;
  readonly path: ForeignPath;
  readonly runId: string;
  /** The step the kill comes before: half way. */
  readonly killAt: number;
  xstate: XStateRun;
}

const drives = (): Drive[] =>
  hostableMachines.flatMap((entry) =>
    entry.paths
      .filter((path) => path.steps.every((step) => 'send' in step) && notYet(entry, path, 'serve') === undefined)
      .map((path, i) => ({ entry, path, runId: `${entry.name}-${i}`, killAt: Math.floor(path.steps.length / 2) }))
      .map((drive) => drive as Drive),
  );

it('commits what plain XState holds after every step, through a SIGKILL of serve mid-path', async () => {
  const dir = testDir('foreign-serve');
  const { store: file } = writeCorpusConfig(dir);
  const all = drives();
  expect(all.length).toBeGreaterThanOrEqual(20);
  let serve: ServeProcess | undefined;
  let watch: StepWatch | undefined;
  let store: Store | undefined;
  try {
    serve = await startServeProcess(dir, []);
    watch = await StepWatch.open(serve.url);
    store = sqliteStore(file, { readOnly: true });
    const on = { url: serve.url, watch, store };

    // What serve committed, read from its store.
    const committed = async (drive: Drive) => seenOf((await store!.load(drive.runId))!.snapshot);
    const compare = async (drive: Drive, after: string) =>
      expect({ run: drive.runId, after, ...(await committed(drive)) }).toEqual({
        run: drive.runId,
        after,
        ...drive.xstate.seen(),
      });

    for (const drive of all) {
      drive.xstate = await XStateRun.start(drive.entry, drive.path);
      const seen = on.watch.count(drive.runId);
      const started = await api(on.url, 'POST', '/api/runs', {
        machine: drive.entry.name,
        id: drive.runId,
        ...(drive.path.input !== undefined && { input: drive.path.input }),
      });
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      await settled(on, drive.runId, seen, drive.path.started);
      await compare(drive, 'start');
    }
    const take = async (drive: Drive, from: number, to: number) => {
      for (const step of drive.path.steps.slice(from, to)) {
        if (!('send' in step))
          throw new Error('serve runs on the wall clock: a path that moves the clock is not driven here');
        const seen = on.watch.count(drive.runId);
        const sent = await api(on.url, 'POST', `/api/runs/${drive.runId}/events`, { event: step.send });
        if (step.refused) expect(sent.status, describeStep(step)).toBeGreaterThanOrEqual(400);
        else expect(sent.status, `${describeStep(step)}: ${JSON.stringify(sent.body)}`).toBe(200);
        await drive.xstate.step(step);
        await settled(on, drive.runId, seen, step.until);
        await compare(drive, describeStep(step));
      }
    };
    for (const drive of all) await take(drive, 0, drive.killAt);

    expect(await serve.stop('SIGKILL')).toBeUndefined();
    await watch.close();
    serve = await startServeProcess(dir, []);
    watch = await StepWatch.open(serve.url);
    on.url = serve.url;
    on.watch = watch;
    for (const drive of all) await compare(drive, 'the restart');

    for (const drive of all) await take(drive, drive.killAt, drive.path.steps.length);

    // Every run's log, with its kill and restore, replays to what serve committed.
    const lifecycles = corpusLifecycles(hostableMachines);
    for (const drive of all)
      expect({ run: drive.runId, ...(await verifyRun(store, lifecycles, drive.runId)) }).toMatchObject({
        run: drive.runId,
        mismatches: [],
        ok: true,
      });
  } finally {
    for (const drive of all) drive.xstate?.stop();
    await watch?.close();
    await serve?.stop('SIGKILL');
    await store?.close();
  }
});

/**
 * Resolves once the run, past its `seen`th step, rests where `until` says (at once without one): each
 * step the stream tells of is checked against the store, so none is missed between a read and a wait.
 */
async function settled(
  on: { watch: StepWatch; store: Store },
  runId: string,
  seen: number,
  until: Settled | undefined,
): Promise<void> {
  if (until === undefined) return;
  for (let count = seen; ; ) {
    const now = on.watch.count(runId);
    const run = await on.store.load(runId);
    if (run && until(run.snapshot as Persisted)) return;
    count = Math.max(count, now);
    await on.watch.after(runId, count);
  }
}
