/**
 * The seed's three queries through the runtime: on SQLite read from the index keys the session
 * lifecycle declares (an index walk, checked with EXPLAIN QUERY PLAN), on the memory store by a
 * scan; both give the seed's order, the same as the pure queries over every stored session.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createRuntime, ManualClock, UnknownIndexKeyError, type Runtime } from '../../src/runtime/index.js';
import { LIST_BY_INDEX as SQLITE_INDEX_QUERY } from '../../src/stores/sqlite/statements.js';
import { memoryStore, sqliteStore, type Store } from '../../src/stores/index.js';
import {
  activeSessions,
  asSessionRun,
  listActiveSessions,
  listSessionsAwaitingInput,
  listTerminalSessions,
  sessionsAwaitingInput,
  terminalSessions,
} from '../../src/session/queries.js';
import { ev, input, T0 } from '../machines/session-fixtures.js';
import { tempDir } from '../stores/temp-dir.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sqlitePath() {
  const dir = await tempDir('session-index');
  cleanups.push(() => dir.remove());
  return join(dir.path, 'state.db');
}

async function runtimeOn(store: Store) {
  const runtime = await createRuntime({ store, machines: lifecycles, clock: new ManualClock(T0) });
  cleanups.push(async () => {
    await runtime.close();
    await store.close();
  });
  return runtime;
}

const s = (n: number) => T0 + n * 1_000;

/** Sessions in every status, with activity and completion times out of creation order. */
async function populate(runtime: Runtime) {
  const start = (id: string) => runtime.start('session', { id, input: input({ log_path: `/tmp/${id}.jsonl` }) });
  const steps: Array<[string, object[]]> = [
    ['done-early', [ev.session(s(1)), ev.result(s(2)), ev.exited(s(10), 0)]],
    ['starting', [ev.spawned(s(40))]],
    ['running', [ev.session(s(30))]],
    ['waiting', [ev.session(s(1)), ev.approval(s(20), 'w-1'), ev.approval(s(21), 'w-2')]],
    ['failed-late', [ev.session(s(1)), ev.exited(s(50), 1)]],
    ['waiting-old', [ev.session(s(1)), ev.approval(s(5), 'o-1')]],
    ['running-tie', [ev.session(s(30))]],
    [
      'waiting-resolved',
      [ev.session(s(1)), ev.approval(s(3), 'r-1'), ev.approval(s(4), 'r-2'), ev.resolve(s(45), 'r-1')],
    ],
    ['interrupted', [ev.session(s(1)), ev.interrupt(s(35))]],
  ];
  for (const [id, events] of steps) {
    await start(id);
    for (const event of events) await runtime.dispatch(id, event as { type: string });
  }
}

const ids = (xs: Array<{ session_id: string }>) => xs.map((x) => x.session_id);

describe('the session queries through the runtime', () => {
  for (const kind of ['sqlite', 'memory'] as const) {
    it(`answer in the seed's order on the ${kind} store, the same as the pure queries over every session`, async () => {
      const store = kind === 'sqlite' ? sqliteStore(await sqlitePath()) : memoryStore();
      const runtime = await runtimeOn(store);
      await populate(runtime);
      const all = (await runtime.list({ machine: 'session' })).map(asSessionRun);

      const active = await listActiveSessions(runtime);
      expect(ids(active)).toEqual(['waiting-resolved', 'starting', 'running', 'running-tie', 'waiting', 'waiting-old']);
      expect(active.map((a) => a.last_activity_at)).toEqual([s(45), s(40), s(30), s(30), s(21), s(5)]);
      expect(active).toEqual(activeSessions(all));

      const terminal = await listTerminalSessions(runtime);
      expect(ids(terminal)).toEqual(['failed-late', 'interrupted', 'done-early']);
      expect(terminal).toEqual(terminalSessions(all));

      const awaiting = await listSessionsAwaitingInput(runtime);
      expect(awaiting.map((a) => [a.session.session_id, a.approvals.map((p) => p.approval_id)])).toEqual([
        ['waiting-resolved', ['r-2']],
        ['waiting-old', ['o-1']],
        ['waiting', ['w-1', 'w-2']],
      ]);
      expect(awaiting).toEqual(sessionsAwaitingInput(all));

      expect(ids(await listActiveSessions(runtime, { limit: 2 }))).toEqual(['waiting-resolved', 'starting']);
    });
  }

  it('keep the keys in step with each commit: a session leaves the active list when it ends', async () => {
    const path = await sqlitePath();
    const runtime = await runtimeOn(sqliteStore(path));
    await populate(runtime);
    await runtime.dispatch('waiting', ev.resolve(s(60), 'w-1'));
    await runtime.dispatch('waiting', ev.resolve(s(61), 'w-2'));
    await runtime.dispatch('running', ev.interrupt(s(70)));
    expect(ids(await listActiveSessions(runtime))).toEqual([
      'waiting',
      'waiting-resolved',
      'starting',
      'running-tie',
      'waiting-old',
    ]);
    expect(ids(await listTerminalSessions(runtime))).toEqual(['running', 'failed-late', 'interrupted', 'done-early']);
    expect((await listSessionsAwaitingInput(runtime)).map((a) => a.session.session_id)).toEqual([
      'waiting-resolved',
      'waiting-old',
    ]);

    // One row per session and key it is listed under, nothing left behind by the moves.
    const db = new Database(path, { readonly: true });
    cleanups.push(async () => void db.close());
    const counts = db.prepare('SELECT key, count(*) AS n FROM run_keys GROUP BY key ORDER BY key').all();
    expect(counts).toEqual([
      { key: 'active_by_activity', n: 5 },
      { key: 'awaiting_input', n: 2 },
      { key: 'terminal_by_completion', n: 4 },
    ]);
  });

  it('walk the index on SQLite: no scan of the runs, no sort', async () => {
    const path = await sqlitePath();
    const runtime = await runtimeOn(sqliteStore(path));
    await populate(runtime);
    const db = new Database(path, { readonly: true });
    cleanups.push(async () => void db.close());
    const plan = (
      db.prepare(`EXPLAIN QUERY PLAN ${SQLITE_INDEX_QUERY}`).all('session', 'active_by_activity', -1) as Array<{
        detail: string;
      }>
    ).map((r) => r.detail);
    expect(plan).toEqual([
      expect.stringMatching(/^SEARCH k USING COVERING INDEX run_keys_by_key \(machine=\? AND key=\?\)$/),
      expect.stringMatching(/^SEARCH r USING INDEX sqlite_autoindex_runs_1 \(run_id=\?\)$/),
    ]);
    expect(plan.join('\n')).not.toMatch(/SCAN|TEMP B-TREE/);
  });

  it('key the runs a store holds from before the keys (a version 1 file), once, when a runtime starts on it', async () => {
    const path = await sqlitePath();
    const first = sqliteStore(path);
    const writer = await createRuntime({ store: first, machines: lifecycles, clock: new ManualClock(T0) });
    await populate(writer);
    await writer.close();
    await first.close();
    // What a store written before index keys looks like.
    const db = new Database(path);
    db.exec('DELETE FROM run_keys; DELETE FROM run_key_sets; PRAGMA user_version = 1;');
    db.close();

    const logs: string[] = [];
    const store = sqliteStore(path);
    const runtime = await createRuntime({
      store,
      machines: lifecycles,
      clock: new ManualClock(T0),
      recover: false,
      onLog: (e) => logs.push(e.message),
    });
    cleanups.push(async () => {
      await runtime.close();
      await store.close();
    });
    expect(logs).toEqual(["indexed 9 session runs under their lifecycle's keys"]);
    expect(ids(await listActiveSessions(runtime))).toEqual([
      'waiting-resolved',
      'starting',
      'running',
      'running-tie',
      'waiting',
      'waiting-old',
    ]);
    expect(ids(await listTerminalSessions(runtime))).toEqual(['failed-late', 'interrupted', 'done-early']);

    // Unchanged declaration: nothing to do at the next start.
    const again = await createRuntime({
      store,
      machines: lifecycles,
      recover: false,
      onLog: (e) => logs.push(e.message),
    });
    await again.close();
    expect(logs).toHaveLength(1);
  });

  it('re-key every run when the declaration changes', async () => {
    const path = await sqlitePath();
    const store = sqliteStore(path);
    const runtime = await runtimeOn(store);
    await populate(runtime);
    // The same key, now by creation time, oldest first: the stored keys follow the new declaration.
    const byCreation = {
      ...lifecycles,
      session: {
        ...lifecycles.session,
        indexes: {
          ...lifecycles.session.indexes,
          active_by_activity: {
            order: 'asc' as const,
            of: (snap: { value: unknown; context: any }) =>
              snap.value === 'failed' || snap.value === 'completed' ? null : snap.context.created_at,
          },
        },
      },
    };
    const other = sqliteStore(path);
    const changed = await createRuntime({ store: other, machines: byCreation, recover: false });
    cleanups.push(async () => {
      await changed.close();
      await other.close();
    });
    // Every session was created at T0: ties go by id.
    expect(ids(await listActiveSessions(changed))).toEqual([
      'running',
      'running-tie',
      'starting',
      'waiting',
      'waiting-old',
      'waiting-resolved',
    ]);
  });

  it('answer by scanning on a read-only store keyed by another declaration, and write nothing', async () => {
    const path = await sqlitePath();
    const store = sqliteStore(path);
    const runtime = await runtimeOn(store);
    await populate(runtime);
    await runtime.close();
    await store.close();
    const byCreation = {
      ...lifecycles,
      session: {
        ...lifecycles.session,
        indexes: {
          ...lifecycles.session.indexes,
          active_by_activity: {
            order: 'asc' as const,
            of: (snap: { value: unknown; context: any }) =>
              snap.value === 'failed' || snap.value === 'completed' ? null : snap.context.created_at,
          },
        },
      },
    };
    const before = readFileSync(path);
    const reader = sqliteStore(path, { readOnly: true });
    const readOnly = await createRuntime({ store: reader, machines: byCreation, recover: false });
    cleanups.push(async () => {
      await readOnly.close();
      await reader.close();
    });
    // The new declaration's order, found by scanning: the stored keys are the old declaration's.
    expect(ids(await listActiveSessions(readOnly))).toEqual([
      'running',
      'running-tie',
      'starting',
      'waiting',
      'waiting-old',
      'waiting-resolved',
    ]);
    expect(readFileSync(path).equals(before)).toBe(true); // the file as the last writer left it: keys not rewritten
  });

  it('refuse a key the lifecycle does not declare, naming the ones it does', async () => {
    const runtime = await runtimeOn(memoryStore());
    await expect(runtime.listByIndex('session', 'by_cost')).rejects.toThrow(UnknownIndexKeyError);
    await expect(runtime.listByIndex('session', 'by_cost')).rejects.toThrow(
      "Machine 'session' declares no index key 'by_cost' (it declares 'active_by_activity', 'terminal_by_completion', 'awaiting_input')",
    );
    await expect(runtime.listByIndex('execution', 'x')).rejects.toThrow(
      /declares no index key 'x' \(it declares none\)/,
    );
  });
});
