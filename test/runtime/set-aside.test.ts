/**
 * Runs a changed registry cannot restore are set aside with their reason: the runtime starts, the
 * other runs go on, and the set-aside ones are listed, refused events, moved on by a migration, or
 * ended by a person. On a real SQLite file and on Postgres, restarted as a host would be.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Lifecycle, Lifecycles } from '../../machines/index.js';
import {
  createRuntime,
  InvalidArgumentError,
  ManualClock,
  RunNotSetAsideError,
  RunSetAsideError,
  setAsideRunsIn,
  verifyRun,
  type LogEntry,
} from '../../src/runtime/index.js';
import { postgresStore, sqliteStore, type Store } from '../../src/stores/index.js';
import { articleChangedUnversioned, articleV1, articleV2, articleV2Migrated } from '../fixtures/changed-machine.js';
import { testDir } from '../stores/temp-dir.js';
import { dropSchema, freshSchema, requirePostgres, skipPostgres, url } from '../stores/test-postgres.js';

const clock = () => new ManualClock(Date.UTC(2026, 5, 1));

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas.splice(0)) await dropSchema(schema);
});

/** Where a store lives, and how a restarted host opens it again. */
const kinds: Record<string, { location(): string; open(location: string): Promise<Store> }> = {
  sqlite: { location: () => join(testDir('set-aside'), 'state.db'), open: async (path) => sqliteStore(path) },
  ...(!skipPostgres && {
    postgres: {
      location: () => {
        requirePostgres();
        const schema = freshSchema();
        schemas.push(schema);
        return schema;
      },
      open: (schema: string) => postgresStore({ connectionString: url, schema }),
    },
  }),
};

describe.each(Object.keys(kinds))('runs a changed definition strands (%s)', (kind) => {
  const { location, open } = kinds[kind]!;

  /** A store with three v1 articles: `in-review` (draft -> review), `drafting` and `other` (draft). */
  async function storeOfV1Runs(): Promise<{ path: string; store: Store }> {
    const path = location();
    const store = await open(path);
    const rt = await createRuntime({ store, machines: { article: articleV1 }, clock: clock() });
    for (const id of ['in-review', 'drafting', 'other']) await rt.start('article', { id, input: { title: id } });
    await rt.dispatch('in-review', { type: 'NEXT' });
    await rt.close();
    return { path, store };
  }

  async function restart(store: Store, machines: Lifecycles) {
    const logs: LogEntry[] = [];
    const rt = await createRuntime({
      store,
      machines,
      clock: clock(),
      onLog: (entry) => logs.push(entry),
      onError: (e) => logs.push({ runId: e.runId, level: 'error', message: e.error.message }),
    });
    return { rt, logs };
  }

  it('are set aside with their reason while the others run, and take no events', async () => {
    const { store } = await storeOfV1Runs();
    const { rt, logs } = await restart(store, { article: articleChangedUnversioned });

    expect(rt.setAside()).toEqual([
      {
        runId: 'in-review',
        machine: 'article',
        state: 'review',
        version: 1,
        reason: expect.stringContaining("State 'review' does not exist"),
      },
    ]);
    // Reported once, on the error channel, with what XState said.
    expect(logs).toEqual([
      {
        runId: 'in-review',
        level: 'error',
        message: expect.stringMatching(/^Run 'in-review' is set aside: XState cannot restore/),
      },
    ]);
    // The others were restored and move on.
    expect(rt.restoredAtStart.map((r) => r.runId).sort()).toEqual(['drafting', 'other']);
    expect((await rt.dispatch('drafting', { type: 'NEXT' })).state).toBe('published');

    const refused = await rt.dispatch('in-review', { type: 'NEXT' }).catch((error: Error) => error);
    expect(refused).toBeInstanceOf(RunSetAsideError);
    expect((refused as Error).message).toMatch(
      /^Run 'in-review' is set aside: XState cannot restore .*`statewright end in-review --reason \.\.\.`\)\.$/,
    );
    expect((await store.load('in-review'))!.seq).toBe(1); // unchanged

    // The same run, found without a runtime.
    expect(await setAsideRunsIn(store, { article: articleChangedUnversioned })).toEqual(rt.setAside());
    expect(await setAsideRunsIn(store, { article: articleV1 })).toEqual([]);
    await rt.close();
    await store.close();
  });

  it('names the missing migration, and a restart with the migration registered restores them', async () => {
    const { path, store } = await storeOfV1Runs();
    const { rt } = await restart(store, { article: articleV2 });
    // Found in the order the store's sweep claims them.
    expect(
      rt
        .setAside()
        .map((r) => [r.runId, r.version])
        .sort(),
    ).toEqual([
      ['drafting', 1],
      ['in-review', 1],
      ['other', 1],
    ]);
    expect(rt.setAside()[0]!.reason).toMatch(
      /stored by article v1, but this runtime has article v2.*register a migration/,
    );
    await rt.close();
    await store.close();

    const reopened = await open(path);
    const migrated = await restart(reopened, { article: articleV2Migrated });
    expect(migrated.rt.setAside()).toEqual([]);
    expect(await setAsideRunsIn(reopened, { article: articleV2Migrated })).toEqual([]);
    const moved = await migrated.rt.dispatch('in-review', { type: 'NEXT' });
    expect([moved.state, moved.status, moved.version]).toEqual(['published', 'done', 2]);
    await migrated.rt.close();
    await reopened.close();
  });

  it('sets aside a run whose recovery hook throws, or whose machine is gone, and the rest run', async () => {
    const { store } = await storeOfV1Runs();
    const throwing: Lifecycle = {
      ...articleV1,
      recover: (run) => {
        if (run.runId === 'other') throw new Error('cannot read the old owner');
        return [];
      },
    };
    const { rt } = await restart(store, { article: throwing });
    expect(rt.setAside()).toEqual([
      {
        runId: 'other',
        machine: 'article',
        state: 'draft',
        version: 1,
        reason: "its lifecycle's recovery hook threw: cannot read the old owner",
      },
    ]);
    expect((await rt.dispatch('in-review', { type: 'NEXT' })).state).toBe('published');
    await rt.close();

    const gone = await restart(store, {});
    expect(
      gone.rt
        .setAside()
        .map((r) => r.runId)
        .sort(),
    ).toEqual(['drafting', 'other']);
    expect(gone.rt.setAside()[0]!.reason).toMatch(/Unknown machine 'article'/);
    await gone.rt.close();
    await store.close();
  });

  it('can be ended by a person: who and why are in the audit trail, the snapshot is kept, and it is no longer set aside', async () => {
    const { path, store } = await storeOfV1Runs();
    const before = (await store.load('in-review'))!;
    const { rt } = await restart(store, { article: articleChangedUnversioned });

    await expect(rt.endSetAside('drafting', { actor: 'ana', reason: 'x' })).rejects.toBeInstanceOf(RunNotSetAsideError);
    await expect(rt.endSetAside('in-review', { actor: 'ana', reason: ' ' })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    expect((await store.load('in-review'))!.seq).toBe(1);

    const ended = await rt.endSetAside('in-review', {
      actor: 'ana',
      reason: 'reviews were dropped; republish by hand',
    });
    expect([ended.status, ended.state, ended.seq, ended.value, ended.context]).toEqual([
      'stopped',
      'review',
      2,
      'review',
      { title: 'in-review' },
    ]);
    expect(rt.setAside()).toEqual([]);
    const last = (await rt.history('in-review')).at(-1)!;
    expect(last).toMatchObject({
      seq: 2,
      event: { type: 'statewright.ended' },
      actor: 'ana',
      reason: 'reviews were dropped; republish by hand',
      before: 'review',
      after: 'review',
    });
    // Under the definition that stored it, the log still explains the run.
    expect((await verifyRun(store, { article: articleV1 }, 'in-review')).mismatches).toEqual([]);
    await expect(rt.endSetAside('in-review', { actor: 'ana', reason: 'again' })).rejects.toThrow(
      /already ended \(status 'stopped'\)/,
    );
    await rt.close();
    await store.close();

    // A restart under the changed definition has nothing left to set aside; the snapshot is as stored.
    const reopened = await open(path);
    const again = await restart(reopened, { article: articleChangedUnversioned });
    expect(again.rt.setAside()).toEqual([]);
    expect((await reopened.load('in-review'))!.snapshot).toEqual({ ...(before.snapshot as object), status: 'stopped' });
    await again.rt.close();
    await reopened.close();
  });

  it('ends a set-aside run from a runtime that restored nothing (as the CLI does)', async () => {
    const { store } = await storeOfV1Runs();
    const rt = await createRuntime({ store, machines: { article: articleV2 }, clock: clock(), recover: false });
    expect(rt.setAside()).toEqual([]);
    const ended = await rt.endSetAside('other', { actor: 'ops', reason: 'abandoned draft' });
    expect(ended.status).toBe('stopped');
    expect((await setAsideRunsIn(store, { article: articleV2 })).map((r) => r.runId)).toEqual([
      'drafting',
      'in-review',
    ]);
    await rt.close();
    await store.close();
  });
});
