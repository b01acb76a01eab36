/**
 * The store conformance suite: one set of tests that every Store implementation must pass, first
 * through the Store interface directly, then through the runtime on top of it.
 */
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { execution, lifecycles, type ExecutionState } from '../../machines/index.js';
import type { Lifecycles } from '../../machines/index.js';
import { ManualClock } from '../../src/actor-contract/clock.js';
import { InvalidArgumentError, RunSetAsideError } from '../../src/runtime/errors.js';
import { verifyRun } from '../../src/runtime/replay.js';
import { createRuntime, type Runtime, type RuntimeError } from '../../src/runtime/runtime.js';
import { setAsideRunsIn } from '../../src/runtime/set-aside.js';
import type { RunSnapshot } from '../../src/runtime/run-snapshot.js';
import { StoreClosedError } from '../../src/stores/store-errors.js';
import { pageConformance } from './page-conformance.js';
import {
  CommitConflictError,
  type Commit,
  type EventRecord,
  type Store,
  type StoredRun,
} from '../../src/stores/store.js';

export interface OpenedStore {
  readonly store: Store;
  /** Closes the current store and opens the same storage again, as a restarted process would. Memory stores return themselves. */
  reopen(): Promise<Store>;
  /** Corruption reports the store made (file-backed stores); the suite expects none in normal operation. */
  warnings(): readonly unknown[];
  /** Closes the store and removes its storage. */
  dispose(): Promise<void>;
}

export interface StoreHarness {
  readonly name: string;
  /** Whether a reopened store reads what the previous one wrote from storage (false for memory). */
  readonly durable: boolean;
  fresh(): Promise<OpenedStore>;
}

const T0 = Date.UTC(2026, 0, 1);
const OWNER = { id: 'conformance', pid: 1, pidStart: '1', host: 'test-host' };

export function row(runId: string, seq: number, overrides: Partial<StoredRun> = {}): StoredRun {
  return {
    runId,
    machine: 'execution',
    version: 1,
    status: 'active',
    state: seq === 0 ? 'pending' : `s${seq}`,
    snapshot: {
      value: seq === 0 ? 'pending' : `s${seq}`,
      status: 'active',
      context: { seq, nested: [1, 'two', { three: 3, unicode: 'ü✓' }] },
    },
    input: { job: 'build', attempt: 1 },
    seq,
    owner: OWNER,
    createdAt: T0,
    updatedAt: T0 + seq,
    ...overrides,
  };
}

export function record(runId: string, seq: number, overrides: Partial<EventRecord> = {}): EventRecord {
  return {
    runId,
    seq,
    event: { type: 'STEP', at: T0 + seq, payload: { n: seq, text: 'line\nbreak "quoted"' } } as EventRecord['event'],
    at: T0 + seq,
    actor: 'tester',
    reason: `step ${seq}`,
    before: seq === 1 ? 'pending' : `s${seq - 1}`,
    after: `s${seq}`,
    ...overrides,
  };
}

export const create = (runId: string, overrides: Partial<StoredRun> = {}): Commit => ({
  run: row(runId, 0, overrides),
  expectedSeq: undefined,
});
export const step = (runId: string, seq: number, extra: Partial<Commit> = {}): Commit => ({
  run: row(runId, seq),
  event: record(runId, seq),
  expectedSeq: seq - 1,
  ...extra,
});

/** Commits creation and `n` steps, one commit at a time. */
export async function seed(store: Store, runId: string, n: number): Promise<void> {
  await store.commit([create(runId)]);
  for (let seq = 1; seq <= n; seq++) await store.commit([step(runId, seq)]);
}

/** A pid that belonged to a process that has exited: runs owned by it count as orphaned. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid!;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject, it resolved');
}

const ids = (runs: ReadonlyArray<{ runId: string }>) => runs.map((r) => r.runId).sort();

/** Run ids the runtime refuses: each names what is wrong with it. */
export const MALFORMED_RUN_IDS: readonly string[] = [
  '',
  '.',
  '..',
  'x'.repeat(257),
  'lone\ud800',
  '\udc00trail',
  'nul\u0000',
  'bell\u0007',
  'del\u007f',
  'c1\u0085',
  'c1\u009f',
  'zero\u200bwidth',
  'rlo\u202eevil',
  'bom\ufeff',
  'soft\u00adhyphen',
  'line\u2028sep',
  'tag\u{e0041}',
];

/** Run ids that only look unusual: the runtime takes them, and every store keeps them apart. */
export const UNUSUAL_RUN_IDS: readonly string[] = [
  '...',
  '.a',
  'a.',
  '%',
  '%25',
  '%2E',
  'a b',
  ' ',
  'ü',
  'u\u0308',
  '😀',
  '\ufffd',
  'Ab',
  'aB',
  'a/b',
  '~',
  'x'.repeat(256),
  // Names Windows keeps for devices, whatever follows a dot, and names it would cut (trailing dot, space).
  'nul',
  'aux.txt',
  'com1',
  'CON',
  'prn.json',
  'lpt9',
  'nul.',
  'a ',
  `nul.${'x'.repeat(200)}`,
];

/** A store whose calls are recorded, to show what the runtime asked of it. */
function recorded(store: Store, calls: unknown[][]): Store {
  const wrap = <T extends object>(target: T, prefix: string): T =>
    new Proxy(target, {
      get(object, name, receiver) {
        const value = Reflect.get(object, name, receiver) as unknown;
        if (name === 'leases' && value) return wrap(value as object, 'leases.');
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push([`${prefix}${String(name)}`, ...args]);
          return (value as (...a: unknown[]) => unknown).apply(object, args);
        };
      },
    });
  return wrap(store, '');
}

/** Whether `value` holds one of `strings` anywhere inside. */
function mentions(value: unknown, strings: readonly string[]): boolean {
  if (typeof value === 'string') return strings.includes(value);
  if (value && typeof value === 'object') return Object.values(value).some((v) => mentions(v, strings));
  return false;
}

export function storeConformance(harness: StoreHarness): void {
  const opened: OpenedStore[] = [];
  const open = async () => {
    const o = await harness.fresh();
    opened.push(o);
    return o;
  };
  afterEach(async () => {
    for (const o of opened.splice(0)) {
      expect(o.warnings(), 'corruption reports in normal operation').toEqual([]);
      await o.dispose();
    }
  });

  describe(`${harness.name} store: the Store contract`, () => {
    it('round-trips a run and its events exactly', async () => {
      const { store } = await open();
      expect(await store.load('r1')).toBeUndefined();
      expect(await store.history('r1')).toEqual([]);
      await store.commit([create('r1')]);
      expect(await store.load('r1')).toEqual(row('r1', 0));
      const bare = record('r1', 1, { actor: undefined, reason: undefined });
      delete (bare as { actor?: string }).actor;
      delete (bare as { reason?: string }).reason;
      await store.commit([{ run: row('r1', 1, { status: 'done', state: 'success' }), event: bare, expectedSeq: 0 }]);
      expect(await store.load('r1')).toEqual(row('r1', 1, { status: 'done', state: 'success' }));
      const history = await store.history('r1');
      expect(history).toEqual([bare]);
      expect(Object.keys(history[0]!)).not.toContain('actor');
      // The credential an event came with (`session:<id>`, `user-token`) is kept as it was.
      await store.commit([create('r2')]);
      const sent = record('r2', 1, { credential: 'session:s-1' });
      await store.commit([{ run: row('r2', 1), event: sent, expectedSeq: 0 }]);
      expect(await store.history('r2')).toEqual([sent]);
    });

    it('keeps run ids apart that differ in case, slashes, dots or length', async () => {
      const { store } = await open();
      const runIds = [
        'run',
        'Run',
        'RUN',
        'a/b',
        'a%2Fb',
        '..',
        '.',
        '../escape',
        'ü-ü',
        'x'.repeat(300),
        `${'x'.repeat(299)}y`,
      ];
      for (const [i, runId] of runIds.entries()) await store.commit([create(runId, { input: { i } })]);
      for (const [i, runId] of runIds.entries()) expect((await store.load(runId))?.input, runId).toEqual({ i });
      expect(ids(await store.list())).toEqual([...runIds].sort());
    });

    it('keeps what it stored apart from the objects it returned', async () => {
      const { store } = await open();
      await store.commit([
        create('r1'),
        { ...step('r1', 1), event: record('r1', 1, { idempotencyKey: 'k' }), result: { ok: true } },
      ]);
      const loaded = await store.load('r1');
      (loaded!.snapshot as { value: string }).value = 'changed by a reader';
      ((await store.list())[0] as { state: string }).state = 'changed by a lister';
      (await store.history('r1'))[0]!.event.type = 'CHANGED';
      ((await store.findIdempotent('r1', 'k'))!.result as { ok: boolean }).ok = false;
      expect(await store.load('r1')).toEqual(row('r1', 1));
      expect(await store.history('r1')).toEqual([record('r1', 1, { idempotencyKey: 'k' })]);
      expect(await store.findIdempotent('r1', 'k')).toEqual({ seq: 1, result: { ok: true } });
    });

    it('keeps the history in seq order, across single commits and batches', async () => {
      const { store } = await open();
      await seed(store, 'r1', 5);
      await store.commit([step('r1', 6), step('r1', 7), step('r1', 8)]);
      await store.commit([step('r1', 9)]);
      const history = await store.history('r1');
      expect(history.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(history[6]).toEqual(record('r1', 7));
      expect((await store.load('r1'))?.seq).toBe(9);
    });

    it('commits batches that span several runs', async () => {
      const { store } = await open();
      await store.commit([create('a'), create('b')]);
      await store.commit([step('a', 1), step('b', 1), step('a', 2), create('c')]);
      expect((await store.load('a'))?.seq).toBe(2);
      expect((await store.load('b'))?.seq).toBe(1);
      expect((await store.load('c'))?.seq).toBe(0);
      expect((await store.history('a')).map((e) => e.seq)).toEqual([1, 2]);
    });

    it('finds the result stored with an idempotency key, per run', async () => {
      const { store } = await open();
      await seed(store, 'r1', 2);
      await store.commit([create('r2')]);
      const result = { seq: 3, state: 's3', nested: { list: [1, 2] } };
      await store.commit([step('r1', 3, { event: record('r1', 3, { idempotencyKey: 'key-1' }), result })]);
      await store.commit([step('r2', 1, { event: record('r2', 1, { idempotencyKey: 'key-2' }), result: 'two' })]);
      expect(await store.findIdempotent('r1', 'key-1')).toEqual({ seq: 3, result });
      expect(await store.findIdempotent('r2', 'key-2')).toEqual({ seq: 1, result: 'two' });
      expect(await store.findIdempotent('r1', 'key-2')).toBeUndefined();
      expect(await store.findIdempotent('r1', 'never')).toBeUndefined();
      expect(await store.findIdempotent('nobody', 'key-1')).toBeUndefined();
      // Keys committed after an earlier lookup are found too.
      await store.commit([step('r1', 4, { event: record('r1', 4, { idempotencyKey: 'key-3' }), result: 4 })]);
      expect(await store.findIdempotent('r1', 'key-3')).toEqual({ seq: 4, result: 4 });
      expect((await store.history('r1'))[2]?.idempotencyKey).toBe('key-1');
    });

    it('lists runs, filtered by machine, status and state', async () => {
      const { store } = await open();
      await store.commit([create('a', { state: 'pending' })]);
      await store.commit([create('b', { status: 'done', state: 'success', createdAt: T0 + 1 })]);
      await store.commit([create('c', { machine: 'codon', state: 'running', createdAt: T0 + 2 })]);
      await store.commit([create('d', { state: 'running', createdAt: T0 + 3 })]);
      expect(ids(await store.list())).toEqual(['a', 'b', 'c', 'd']);
      expect(ids(await store.list({}))).toEqual(['a', 'b', 'c', 'd']);
      expect(ids(await store.list({ machine: 'execution' }))).toEqual(['a', 'b', 'd']);
      expect(ids(await store.list({ status: 'active' }))).toEqual(['a', 'c', 'd']);
      expect(ids(await store.list({ state: 'running' }))).toEqual(['c', 'd']);
      expect(ids(await store.list({ machine: 'execution', status: 'active', state: 'running' }))).toEqual(['d']);
      expect(await store.list({ machine: 'nope' })).toEqual([]);
      expect((await store.list({ status: 'done' }))[0]).toEqual(
        row('b', 0, { status: 'done', state: 'success', createdAt: T0 + 1 }),
      );
      // A commit moves a run between filters.
      await store.commit([{ run: row('a', 1, { state: 'running' }), event: record('a', 1), expectedSeq: 0 }]);
      expect(ids(await store.list({ state: 'running' }))).toEqual(['a', 'c', 'd']);
    });

    it('refuses a stale expectedSeq and changes nothing', async () => {
      const { store } = await open();
      await seed(store, 'r1', 1);
      const error = await rejection(store.commit([{ ...step('r1', 1), run: row('r1', 1, { state: 'other' }) }]));
      expect(error).toBeInstanceOf(CommitConflictError);
      expect((error as CommitConflictError).conflicts).toEqual([{ runId: 'r1', expectedSeq: 0, storedSeq: 1 }]);
      expect(await store.load('r1')).toEqual(row('r1', 1));
      expect(await store.history('r1')).toEqual([record('r1', 1)]);
    });

    it('refuses to create a run that exists, or to update one that does not', async () => {
      const { store } = await open();
      await seed(store, 'r1', 2);
      const exists = await rejection(store.commit([create('r1', { input: 'again' })]));
      expect(exists).toBeInstanceOf(CommitConflictError);
      expect((exists as CommitConflictError).conflicts).toEqual([
        { runId: 'r1', expectedSeq: undefined, storedSeq: 2 },
      ]);
      expect((exists as Error).message).toContain("run 'r1' already exists");
      const missing = await rejection(store.commit([step('ghost', 1)]));
      expect((missing as CommitConflictError).conflicts).toEqual([
        { runId: 'ghost', expectedSeq: 0, storedSeq: undefined },
      ]);
      expect(await store.load('r1')).toEqual(row('r1', 2));
      expect(await store.load('ghost')).toBeUndefined();
    });

    it('applies nothing of a batch when one commit in it conflicts', async () => {
      const { store } = await open();
      await seed(store, 'a', 1);
      await seed(store, 'b', 0);
      const error = await rejection(
        store.commit([step('a', 2), create('c'), step('a', 3), { ...step('b', 5), expectedSeq: 4 }]),
      );
      expect(error).toBeInstanceOf(CommitConflictError);
      expect((error as CommitConflictError).conflicts.map((c) => c.runId)).toEqual(['b']);
      expect(await store.load('a')).toEqual(row('a', 1));
      expect(await store.history('a')).toEqual([record('a', 1)]);
      expect(await store.load('b')).toEqual(row('b', 0));
      expect(await store.load('c')).toBeUndefined();
      expect(ids(await store.list())).toEqual(['a', 'b']);
      // Within one batch, a second commit to a run must follow the first.
      const stale = await rejection(store.commit([step('a', 2), step('a', 2)]));
      expect(stale).toBeInstanceOf(CommitConflictError);
      expect((await store.load('a'))?.seq).toBe(1);
      // And the run takes the same commit once the batch is valid.
      await store.commit([step('a', 2), step('a', 3)]);
      expect((await store.history('a')).map((e) => e.seq)).toEqual([1, 2, 3]);
    });

    it('refuses to work once closed, and closes twice without complaint', async () => {
      const { store } = await open();
      await seed(store, 'r1', 1);
      await store.close();
      await store.close();
      expect(await rejection(store.commit([step('r1', 2)]))).toBeInstanceOf(StoreClosedError);
      expect(await rejection(store.load('r1'))).toBeInstanceOf(StoreClosedError);
      expect(await rejection(store.list())).toBeInstanceOf(StoreClosedError);
      expect(await rejection(store.history('r1'))).toBeInstanceOf(StoreClosedError);
    });

    it.skipIf(!harness.durable)('reads back everything after a reopen', async () => {
      const opened = await open();
      const first = opened.store;
      await seed(first, 'a', 3);
      await first.commit([create('b', { createdAt: T0 + 1 })]);
      await first.commit([step('b', 1, { event: record('b', 1, { idempotencyKey: 'k' }), result: { ok: true } })]);
      const before = {
        a: await first.load('a'),
        b: await first.load('b'),
        ha: await first.history('a'),
        list: await first.list(),
      };
      const store = await opened.reopen();
      expect(await store.load('a')).toEqual(before.a);
      expect(await store.load('b')).toEqual(before.b);
      expect(await store.history('a')).toEqual(before.ha);
      expect(await store.list()).toEqual(before.list);
      expect(await store.findIdempotent('b', 'k')).toEqual({ seq: 1, result: { ok: true } });
      await store.commit([step('a', 4)]);
      expect((await store.history('a')).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    });
  });

  pageConformance(harness);

  describe(`${harness.name} store: under the runtime`, () => {
    const runtimes: Runtime[] = [];
    afterEach(async () => {
      for (const rt of runtimes.splice(0)) await rt.close();
    });
    const runtime = async (
      store: Store,
      machines: Lifecycles = lifecycles,
      extra: { owner?: object; recover?: boolean } = {},
    ) => {
      const rt = await createRuntime({ store, machines, clock: new ManualClock(T0), ...extra });
      runtimes.push(rt);
      return rt;
    };

    it('restores runs after a restart: snapshots, history, idempotency, and the next event', async () => {
      const opened = await open();
      const first = await runtime(opened.store, lifecycles, { owner: { pid: deadPid(), pidStart: 'gone' } });
      await first.start('execution', { id: 'one', input: { job: 'lint' } });
      await first.start('execution', { id: 'two' });
      await first.start('execution', { id: 'three' });
      await first.dispatch(
        'one',
        { type: 'ENQUEUE' },
        { actor: 'scheduler', reason: 'capacity', credential: 'user-token' },
      );
      await first.dispatch('one', { type: 'START' }, { idempotencyKey: 'agent-7-start' });
      await first.dispatch('two', { type: 'HOLD' });
      await first.dispatch('three', { type: 'SKIP' });
      const before = {
        one: await first.getSnapshot('one'),
        two: await first.getSnapshot('two'),
        three: await first.getSnapshot('three'),
        history: await first.history('one'),
      };
      await first.close();

      const store = await opened.reopen();
      const second = await runtime(store);
      // As they were, but for who holds them: on a store with leases the restarted runtime claimed the live ones.
      const held = ({ lease: _lease, owner: _owner, ...rest }: RunSnapshot) => rest;
      for (const id of ['one', 'two', 'three'] as const)
        expect(held(await second.getSnapshot(id))).toEqual(held(before[id]));
      if (store.leases)
        for (const id of ['one', 'two'])
          expect((await store.load(id))?.lease).toMatchObject({ holder: second.owner.id, state: 'held', epoch: 2 });
      expect(await second.history('one')).toEqual(before.history);
      expect(
        before.history.map((e) => [e.seq, e.event.type, e.before, e.after, e.actor, e.reason, e.credential]),
      ).toEqual([
        [1, 'ENQUEUE', 'pending', 'queued', 'scheduler', 'capacity', 'user-token'],
        [2, 'START', 'queued', 'running', undefined, undefined, undefined],
      ]);
      expect(Object.keys(before.history[1]!)).not.toContain('credential');
      expect((await second.list({ status: 'active' })).map((r) => r.runId).sort()).toEqual(['one', 'two']);
      // A repeat of an applied idempotent event returns the first result and applies nothing.
      const repeat = await second.dispatch('one', { type: 'START' }, { idempotencyKey: 'agent-7-start' });
      expect(repeat.seq).toBe(2);
      const next = await second.dispatch('one', { type: 'SUCCEED' });
      expect([next.seq, next.state, next.status]).toEqual([3, 'success', 'done']);
      expect((await store.history('one')).map((e) => e.seq)).toEqual([1, 2, 3]);
      for (const id of ['one', 'two', 'three'])
        expect(await verifyRun(store, lifecycles, id)).toMatchObject({ ok: true, mismatches: [] });
    });

    it('refuses a run stored by another version of its lifecycle unless a migration is registered', async () => {
      const opened = await open();
      const first = await runtime(opened.store, lifecycles, { owner: { pid: deadPid(), pidStart: 'gone' } });
      await first.start('execution', { id: 'old' });
      await first.dispatch('old', { type: 'ENQUEUE' });
      await first.close();
      expect((await opened.store.load('old'))?.version).toBe(1);

      const v2: Lifecycles = { execution: { ...lifecycles.execution, version: 2 } };
      let store = await opened.reopen();
      // Restoring on start hits the mismatch before any listener can be attached: it goes to stderr.
      const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      let refusing: Runtime;
      let written: string;
      try {
        refusing = await runtime(store, v2);
      } finally {
        written = stderr.mock.calls.map((c) => String(c[0])).join('');
        stderr.mockRestore();
      }
      expect(written).toContain("Run 'old' was stored by execution v1, but this runtime has execution v2");
      const refused = await rejection(refusing.dispatch('old', { type: 'START' }));
      // The run is set aside with the mismatch as its reason; every other run would go on.
      expect(refused).toBeInstanceOf(RunSetAsideError);
      expect(refused).toMatchObject({
        runId: 'old',
        reason: expect.stringContaining('stored by execution v1, but this runtime has execution v2'),
      });
      expect(await store.load('old')).toMatchObject({ version: 1, seq: 1, state: 'queued' });

      store = await opened.reopen();
      const migrated: Lifecycles = {
        execution: { ...lifecycles.execution, version: 2, migrations: { 1: (snapshot: unknown) => snapshot } },
      };
      const upgraded = await runtime(store, migrated, { recover: false });
      const after = await upgraded.dispatch('old', { type: 'START' });
      expect([after.seq, after.state, after.version]).toEqual([2, 'running', 2]);
      expect(await store.load('old')).toMatchObject({ version: 2, seq: 2 });

      // And a run stored by a newer version is refused by older code (once the upgraded runtime lets go of it).
      await upgraded.unload('old');
      const older = await runtime(store, lifecycles, { recover: false });
      const newer = await rejection(older.dispatch('old', { type: 'SUCCEED' }));
      expect(newer).toMatchObject({
        name: 'RunSetAsideError',
        cause: { name: 'VersionMismatchError', storedVersion: 2, currentVersion: 1 },
      });
    });

    it('refuses a malformed run id at every call that takes one, with InvalidArgumentError, before the store is touched', async () => {
      const opened = await open();
      const calls: unknown[][] = [];
      const rt = await runtime(recorded(opened.store, calls));
      const reported: RuntimeError[] = [];
      const allReported = new Promise<void>((resolve) =>
        rt.onError((error) => {
          reported.push(error);
          if (reported.length === MALFORMED_RUN_IDS.length) resolve();
        }),
      );
      const by = { actor: 'ops', reason: 'tidy' };
      for (const id of MALFORMED_RUN_IDS) {
        const shown = JSON.stringify(id);
        await expect(rt.start('execution', { id }), shown).rejects.toThrow(InvalidArgumentError);
        await expect(rt.dispatch(id, { type: 'ENQUEUE' }), shown).rejects.toThrow(InvalidArgumentError);
        await expect(rt.getSnapshot(id), shown).rejects.toThrow(InvalidArgumentError);
        await expect(rt.history(id), shown).rejects.toThrow(InvalidArgumentError);
        await expect(rt.unload(id), shown).rejects.toThrow(InvalidArgumentError);
        await expect(rt.endSetAside(id, by), shown).rejects.toThrow(InvalidArgumentError);
        rt.send(id, { type: 'ENQUEUE' });
      }
      await allReported;
      expect(reported.map((r) => [r.runId, r.error.name])).toEqual(
        MALFORMED_RUN_IDS.map((id) => [id, 'InvalidArgumentError']),
      );
      // The message says what is wrong and what to do, and shows the id with nothing hidden in it.
      await expect(rt.start('execution', { id: 'rlo\u202eevil' })).rejects.toThrow(
        'Invalid run id: expected a name of 1 to 256 printable characters, not "." or "..", e.g. "build-42" (leave the id out to get a generated one); ' +
          'this one is refused because it holds U+202E, an invisible format character, at index 3, got "rlo\\u202eevil".',
      );
      await expect(rt.start('execution', { id: 'lone\ud800' })).rejects.toThrow(
        /because it holds U\+D800, a lone surrogate \(not well-formed Unicode\), at index 4, got "lone\\ud800"\.$/,
      );
      await expect(rt.start('execution', { id: '..' })).rejects.toThrow(
        /because it is "\." or "\.\.", which a path or a URL reads as a folder/,
      );
      await expect(rt.start('execution', { id: 'x'.repeat(257) })).rejects.toThrow(
        /because it is 257 characters long, over the limit of 256/,
      );
      expect(calls.filter((call) => mentions(call, MALFORMED_RUN_IDS))).toEqual([]);
      expect(await opened.store.list()).toEqual([]);

      // Ids that only look unusual are names like any other, kept apart by every store.
      for (const id of UNUSUAL_RUN_IDS) await rt.start('execution', { id });
      expect(ids(await opened.store.list())).toEqual([...UNUSUAL_RUN_IDS].sort());
      for (const id of UNUSUAL_RUN_IDS)
        expect((await rt.dispatch(id, { type: 'ENQUEUE' })).runId, JSON.stringify(id)).toBe(id);
      for (const id of UNUSUAL_RUN_IDS)
        expect(
          (await opened.store.history(id)).map((e) => [e.runId, e.seq]),
          JSON.stringify(id),
        ).toEqual([[id, 1]]);
    });

    it('sets aside a stored run whose id the runtime refuses (written before ids were checked), and every other run goes on', async () => {
      const opened = await open();
      const first = await runtime(opened.store, lifecycles, { owner: { pid: deadPid(), pidStart: 'gone' } });
      await first.start('execution', { id: 'fine' });
      await first.close();
      // Written past the runtime, by no live process: due at once, so a store with leases hands it to the
      // first sweep. A store that cannot hold an id at all (Postgres: a lone surrogate) refuses it, keeping nothing.
      const written: string[] = [];
      for (const id of ['..', 'c1\u0085', 'rlo\u202eevil', 'lone\ud800']) {
        if (
          await opened.store.commit([{ ...create(id, { owner: undefined }), wakeAt: 0 }]).then(
            () => true,
            () => false,
          )
        )
          written.push(id);
      }
      expect(written).toEqual(expect.arrayContaining(['..', 'c1\u0085', 'rlo\u202eevil']));
      expect(ids(await opened.store.list())).toEqual([...written, 'fine'].sort());

      const store = await opened.reopen();
      for (const id of written) expect((await store.load(id))?.runId, JSON.stringify(id)).toBe(id);
      const reported: RuntimeError[] = [];
      const rt = await createRuntime({
        store,
        machines: lifecycles,
        clock: new ManualClock(T0),
        onError: (error) => reported.push(error),
      });
      runtimes.push(rt);
      expect(ids(rt.setAside())).toEqual([...written].sort());
      for (const entry of rt.setAside())
        expect(entry.reason, JSON.stringify(entry.runId)).toMatch(
          /^its run id is malformed \(it (holds U\+[0-9A-F]{4}|is "\.")/,
        );
      expect(ids(reported)).toEqual([...written].sort());
      for (const { error } of reported) expect(error).toBeInstanceOf(RunSetAsideError);
      // Listed, and named by what status reads, without a runtime too.
      expect(ids(await rt.list())).toEqual([...written, 'fine'].sort());
      expect(ids(await setAsideRunsIn(store, lifecycles))).toEqual([...written].sort());
      expect((await rt.dispatch('fine', { type: 'ENQUEUE' })).state).toBe('queued');
      for (const id of written)
        await expect(rt.dispatch(id, { type: 'ENQUEUE' })).rejects.toThrow(InvalidArgumentError);
      for (const id of written) expect(await store.load(id), JSON.stringify(id)).toMatchObject({ runId: id, seq: 0 });
      // Ended by its exact id, the one way out for a run no call can otherwise name.
      for (const id of written)
        expect(
          (await rt.endSetAside(id, { actor: 'ana', reason: 'malformed id' })).status,
          JSON.stringify(id),
        ).not.toBe('active');
      expect(rt.setAside()).toEqual([]);
      await expect(rt.endSetAside('never\ud800', { actor: 'ana', reason: 'x' })).rejects.toThrow(InvalidArgumentError);
    });

    it('keeps every run replayable through its machine while events flow', async () => {
      const { store } = await open();
      const rt = await runtime(store);
      const runIds: string[] = [];
      for (let i = 0; i < 6; i++) runIds.push((await rt.start('execution', { id: `run-${i}` })).runId);
      // Random valid walks, several runs at once so the runtime batches their commits.
      let lcg = 42;
      const random = () => (lcg = (lcg * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      await Promise.all(
        runIds.map(async (id) => {
          for (let i = 0; i < 8; i++) {
            const state = (await rt.getSnapshot(id)).state as ExecutionState;
            const events = execution.validEvents(state);
            if (events.length === 0) return;
            await rt.dispatch(id, { type: events[Math.floor(random() * events.length)]! });
          }
        }),
      );
      for (const id of runIds) {
        const report = await verifyRun(store, lifecycles, id);
        expect(report, id).toMatchObject({ ok: true });
        expect(report.events).toBe((await store.load(id))!.seq);
      }
    });
  });
}
