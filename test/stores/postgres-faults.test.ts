/**
 * Postgres connection faults under load (issue #13, faults 1 and 2): the runtime's backends are
 * terminated over and over, and a proxy cuts connections right at COMMIT. Whatever happens, the
 * host lives, an acknowledged event is stored exactly once, a refused one not at all, and each run
 * commits again afterwards. The server restarting under load is in postgres-restart.test.ts.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { postgresStore } from '../../src/stores/postgres/postgres-store.js';
import { CommitOutcomeUnknownError, StoreUnavailableError } from '../../src/stores/store-errors.js';
import { until } from '../support/until.js';
import { commitCuttingProxy } from './commit-cutting-proxy.js';
import { expectNothingLost, reportLoad, startLoad } from './postgres-load.js';
import { dropSchema, freshSchema, requirePostgres, skipPostgres, url } from './test-postgres.js';

/** These only catch a hang: each takes about 10 s with both cores busy. */
const LOAD_TIMEOUT = 120_000;

describe.skipIf(skipPostgres)('postgres store: connection faults under load', () => {
  beforeAll(requirePostgres);

  it(
    'survives its backends being terminated over and over: nothing acknowledged lost, nothing refused committed',
    async () => {
      const schema = freshSchema();
      onTestFinished(() => dropSchema(schema));
      const app = `sw_fault_${randomBytes(4).toString('hex')}`;
      const load = await startLoad({ connectionString: `${url}?application_name=${app}`, schema, poolSize: 4 }, 8);
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      onTestFinished(() => admin.end());

      // Every round ends every backend of the runtime, idle or not, and counts those caught inside a
      // transaction (a commit in flight): rounds go on until 40 such were ended.
      let terminations = 0;
      let inTransaction = 0;
      for (let round = 0; round < 40 || inTransaction < 40; round++) {
        await load.progress(10);
        const { rows } = await admin.query<{ done: boolean; busy: boolean }>(
          'SELECT pg_terminate_backend(pid) AS done, xact_start IS NOT NULL AS busy FROM pg_stat_activity WHERE application_name = $1',
          [app],
        );
        terminations += rows.filter((r) => r.done).length;
        inTransaction += rows.filter((r) => r.done && r.busy).length;
      }
      await load.progress(10);
      const audit = await load.finish();
      reportLoad('backends terminated', audit, { terminations, inTransaction });

      expectNothingLost(audit);
    },
    LOAD_TIMEOUT,
  );

  it(
    'settles a commit whose reply was cut off: acknowledged exactly when committed',
    async () => {
      const schema = freshSchema();
      onTestFinished(() => dropSchema(schema));
      const target = new URL(url);
      const proxy = await commitCuttingProxy({ host: target.hostname, port: Number(target.port || 5432) }, 5);
      onTestFinished(() => proxy.close());
      const through = new URL(url);
      through.port = String(proxy.port);
      const load = await startLoad({ connectionString: through.toString(), schema }, 8);

      while (proxy.cutAfter < 20 || proxy.cutBefore < 20) await load.progress(20);
      proxy.stopCutting();
      const audit = await load.finish();
      reportLoad('COMMIT cut', audit, {
        cutAfterForwarding: proxy.cutAfter,
        cutBeforeForwarding: proxy.cutBefore,
        commits: proxy.commits,
      });

      expectNothingLost(audit);
      // With the server up, the store always learns the outcome, so every answer is definite.
      expect(audit.unknown).toBe(0);
      // A commit cut before it was forwarded is settled as rolled back and tried once more (refused
      // only if that is cut too); one cut after it is settled as committed: both mostly show as
      // acknowledged events, not refusals.
      expect(audit.acknowledged).toBeGreaterThan(audit.refused);
    },
    LOAD_TIMEOUT,
  );
});

describe.skipIf(skipPostgres)('postgres store: typed connection errors', () => {
  beforeAll(requirePostgres);

  it('refuses commits and reads with StoreUnavailableError when the connection is lost or refused, having applied nothing', async () => {
    const schema = freshSchema();
    onTestFinished(() => dropSchema(schema));
    const target = new URL(url);
    const proxy = await commitCuttingProxy({ host: target.hostname, port: Number(target.port || 5432) }, 1);
    onTestFinished(() => proxy.close());
    const through = new URL(url);
    through.port = String(proxy.port);
    const store = await postgresStore({ connectionString: through.toString(), schema });
    onTestFinished(() => store.close());
    const direct = await postgresStore({ connectionString: url, schema });
    onTestFinished(() => direct.close());
    const row = (seq: number) => ({
      runId: 'r',
      machine: 'm',
      version: 1,
      status: 'active',
      state: 's',
      snapshot: {},
      input: null,
      seq,
      owner: undefined,
      createdAt: 1,
      updatedAt: 1,
    });
    const step = {
      run: row(2),
      event: { runId: 'r', seq: 2, event: { type: 'E' }, at: 3, before: 's', after: 's' },
      expectedSeq: 1,
    };

    // The first commit is forwarded and cut: settled as committed, so acknowledged.
    await store.commit([{ run: row(0), expectedSeq: undefined }]);
    expect(proxy.cutAfter).toBe(1);
    // The second is cut before it is forwarded: settled as rolled back, so tried once more on a
    // fresh connection, where it is forwarded and cut again: settled as committed, applied once.
    const step1 = {
      run: row(1),
      event: { runId: 'r', seq: 1, event: { type: 'E' }, at: 2, before: 's', after: 's' },
      expectedSeq: 0,
    };
    await store.commit([step1]);
    expect([proxy.cutBefore, proxy.cutAfter]).toEqual([1, 2]);
    expect((await direct.history('r')).map((e) => e.seq)).toEqual([1]);
    // Cut before forwarding twice, it is refused, typed: nothing was applied.
    proxy.cutOnlyBefore();
    const refusal = await store.commit([step]).catch((e: unknown) => e);
    expect(proxy.cutBefore).toBe(3);
    expect(refusal).toBeInstanceOf(StoreUnavailableError);
    expect((refusal as StoreUnavailableError).retryable).toBe(true);
    expect((refusal as StoreUnavailableError).message).toMatch(
      /the server rolled the transaction back\). Nothing was applied: retrying is safe/,
    );
    expect((await direct.load('r'))?.seq).toBe(1);
    expect((await direct.history('r')).map((e) => e.seq)).toEqual([1]);
    // Retrying it is safe: it applies once.
    proxy.stopCutting();
    await store.commit([step]);
    expect((await direct.history('r')).map((e) => e.seq)).toEqual([1, 2]);

    // No server at all: reads and commits are refused the same way.
    await proxy.close();
    await expect(store.load('r')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.commit([{ ...step, run: row(3), expectedSeq: 2 }])).rejects.toThrow(
      /is unavailable \(.*\)\. Nothing was applied/,
    );
    expect((await direct.load('r'))?.seq).toBe(2);
  });

  it('refuses a commit whose outcome cannot be learnt in time with CommitOutcomeUnknownError, naming the transaction and how to find out', async () => {
    const schema = freshSchema();
    onTestFinished(() => dropSchema(schema));
    const target = new URL(url);
    // The proxy goes away with the COMMIT it forwards: nothing answers the question that follows.
    let closing: Promise<void> | undefined;
    const proxy = await commitCuttingProxy(
      { host: target.hostname, port: Number(target.port || 5432) },
      1,
      () => (closing = proxy.close()),
    );
    const through = new URL(url);
    through.port = String(proxy.port);
    const store = await postgresStore({ connectionString: through.toString(), schema, commitOutcomeTimeoutMs: 0 });
    onTestFinished(() => store.close());
    const row = {
      runId: 'u',
      machine: 'm',
      version: 1,
      status: 'active',
      state: 's',
      snapshot: {},
      input: null,
      seq: 0,
      owner: undefined,
      createdAt: 1,
      updatedAt: 1,
    };
    const error = await store.commit([{ run: row, expectedSeq: undefined }]).catch((e: unknown) => e);
    await closing;
    expect(proxy.cutAfter).toBe(1);
    expect(error).toBeInstanceOf(CommitOutcomeUnknownError);
    const unknown = error as CommitOutcomeUnknownError;
    expect(unknown.runs).toEqual([{ runId: 'u', seq: 0 }]);
    // It names the commit and the query that tells whether it took, which is true once asked.
    expect(unknown.message).toContain(unknown.check);
    expect(unknown.check).toContain(`commit_id = ${unknown.transaction}`);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    onTestFinished(() => admin.end());
    const [, asked, pid] = /^(.*) \(once backend (\d+) has ended\)$/.exec(unknown.check)!;
    await until(
      `backend ${pid} to end`,
      async () => (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [Number(pid)])).rowCount === 0,
    );
    // The forwarded commit did commit: what the error says to check is true.
    expect((await admin.query<{ committed: boolean }>(asked!)).rows[0]!.committed).toBe(true);
    const direct = await postgresStore({ connectionString: url, schema });
    onTestFinished(() => direct.close());
    expect((await direct.load('u'))?.seq).toBe(0);
  });
});
