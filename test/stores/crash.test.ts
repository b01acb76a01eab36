/**
 * Crash tests: a child process (crash-child.ts) drives a store through the runtime as fast as it
 * can and is killed with SIGKILL at random moments, many times over the same store (json-file,
 * SQLite, and Postgres, see test-postgres.ts: there the client is killed, the server lives on). After each
 * kill the store is opened here and checked: every acknowledged event is in its run's history at
 * the seq it was acknowledged with, each history is 1..n with every event exactly once, and
 * replaying each run's log through its machine reproduces its stored snapshot.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { verifyRun } from '../../src/runtime/replay.js';
import { jsonFileStore } from '../../src/stores/json-file/json-file-store.js';
import { postgresStore } from '../../src/stores/postgres/postgres-store.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import type { CorruptionReport } from '../../src/stores/store-errors.js';
import type { Store } from '../../src/stores/store.js';
import { builtProgram, endWithTest } from '../support/child-processes.js';
import { until } from '../support/until.js';
import { tempDir } from './temp-dir.js';
import { dropSchema, freshSchema, requirePostgres, skipPostgres, url } from './test-postgres.js';

const CHILD = builtProgram(new URL('./crash-child.ts', import.meta.url));
const KILLS = Number(process.env.STATEWRIGHT_CRASH_KILLS ?? 12);

/** The application name of a child's Postgres connections: the check waits for them to end. */
const childApp = (location: string) => `crash-${location}`;

type JournalLine =
  | { k: 'start' | 'started'; runId: string }
  | { k: 'send' | 'ack'; runId: string; key: string; type: string; seq?: number; again?: boolean };

/** What a crash may leave in a json-file store; anything else reported after a kill is a bug. */
const CRASH_ARTIFACTS = {
  'torn log line cut': /incomplete line \(no newline\)/,
  'commit completed from its log line': /a commit was cut short between writing its log line and swapping the snapshot/,
  'snapshot missing mid-swap': /^the file is missing \(a crash during the snapshot swap/,
};

interface Life {
  /** Which phase the kill hit. */
  readonly phase: 'restoring' | 'running';
  readonly stderr: string;
}

/** Acknowledgements in the journal so far (a line being written counts: the child is that far). */
const acksIn = (journal: string) =>
  readFileSync(journal, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{"k":"ack"')).length;

/**
 * Starts the child on the store and kills it: during the restore of what the last one left (at a
 * random moment of it), or while it runs, once it has acknowledged a random number of events (so
 * each life does real work however slow the machine, and costs no more than that work).
 */
async function liveAndDie(kind: string, location: string, journal: string): Promise<Life> {
  const journalFd = openSync(journal, 'a');
  const ackedBefore = acksIn(journal);
  const env = kind === 'postgres' ? { ...process.env, PGAPPNAME: childApp(location) } : process.env;
  const child = spawn(process.execPath, [CHILD, kind, location, journal, '6'], {
    stdio: ['ignore', journalFd, 'pipe'],
    detached: true,
    env,
  });
  endWithTest(child.pid);
  closeSync(journalFd);
  let stderr = '';
  let gone = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  void exited.then(() => (gone = true));
  const phase: Life['phase'] = Math.random() < 0.25 ? 'restoring' : 'running';
  await new Promise<void>((resolve) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes(phase === 'restoring' ? 'recovering\n' : 'ready\n')) resolve();
    });
    void exited.then(() => resolve());
  });
  if (phase === 'restoring') await new Promise((resolve) => setTimeout(resolve, Math.random() * 150));
  else {
    const target = ackedBefore + 5 + Math.floor(Math.random() * 20);
    await until('the child to acknowledge more events', () => gone || acksIn(journal) >= target, 30_000, 5);
  }
  child.kill('SIGKILL');
  const exit = await exited;
  // Waiting for 'exit' also reaps it: its pid is gone when the store is opened next.
  if (exit.signal !== 'SIGKILL')
    throw new Error(`the child exited by itself (${JSON.stringify(exit)}) instead of being killed:\n${stderr}`);
  return { phase, stderr };
}

function readJournal(path: string): JournalLine[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as JournalLine);
}

/** Every check after a kill. Returns the number of runs checked. */
async function check(store: Store, journal: JournalLine[]): Promise<number> {
  const runs = await store.list();
  const histories = new Map(await Promise.all(runs.map(async (r) => [r.runId, await store.history(r.runId)] as const)));
  for (const run of runs) {
    const history = histories.get(run.runId)!;
    // 1..n, each event once: an event's key names the seq it was meant for, so one applied twice would sit at the wrong seq.
    expect(
      history.map((e) => e.seq),
      run.runId,
    ).toEqual(history.map((_, i) => i + 1));
    expect(
      history.map((e) => e.idempotencyKey),
      run.runId,
    ).toEqual(history.map((e) => `${run.runId}:${e.seq}`));
    expect(run.seq, run.runId).toBe(history.length);
    const replay = await verifyRun(store, lifecycles, run.runId);
    expect(replay.mismatches, run.runId).toEqual([]);
  }
  for (const line of journal) {
    if (line.k === 'started') expect(histories.has(line.runId), `acknowledged start of ${line.runId}`).toBe(true);
    if (line.k !== 'ack') continue;
    const event = histories.get(line.runId)?.[line.seq! - 1];
    expect(
      event && { seq: event.seq, key: event.idempotencyKey, type: event.event.type },
      `acknowledged ${line.key}`,
    ).toEqual({ seq: line.seq, key: line.key, type: line.type });
  }
  return runs.length;
}

const stores = {
  'json-file': {
    location: (dir: string) => join(dir, 'store'),
    open: (location: string, reports: CorruptionReport[]) =>
      jsonFileStore(location, { onCorruption: (r) => reports.push(r) }),
  },
  sqlite: {
    location: (dir: string) => join(dir, 'state.db'),
    open: (location: string) => sqliteStore(location),
  },
  ...(!skipPostgres && {
    postgres: {
      location: () => (requirePostgres(), freshSchema()),
      open: (location: string) => postgresStore({ connectionString: url, schema: location }),
      // The server outlives the killed child: a commit it sent may still be running there, and
      // commit between the check's read of the runs and of their histories. Checked once its
      // backends have ended (a dead client's idle backend ends at once, a busy one after its statement).
      settle: async (location: string) => {
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        try {
          const backends = async () =>
            (await admin.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [childApp(location)]))
              .rowCount;
          await until("the killed child's Postgres backends to end", async () => (await backends()) === 0, 30_000, 10);
        } finally {
          await admin.end();
        }
      },
      dispose: (location: string) => dropSchema(location),
    },
  }),
} as Record<
  string,
  {
    location(dir: string): string;
    open(location: string, reports: CorruptionReport[]): Store | Promise<Store>;
    settle?(location: string): Promise<void>;
    dispose?(location: string): Promise<void>;
  }
>;

// One store at a time: each child drives its store as fast as it can, so three at once would oversubscribe two cores.
describe('crash tests: SIGKILL at random moments', () => {
  for (const [kind, { location: locate, open, settle, dispose }] of Object.entries(stores)) {
    it(`${kind}: nothing acknowledged is lost, nothing is applied twice, every run replays to its snapshot`, {
      timeout: 120_000,
    }, async () => {
      const dir = await tempDir(`crash-${kind}`);
      onTestFinished(() => dir.remove());
      const location = locate(dir.path);
      if (dispose) onTestFinished(() => dispose(location));
      const journal = join(dir.path, 'journal.jsonl');
      const started = performance.now();
      const reports: CorruptionReport[] = [];
      const phases = { restoring: 0, running: 0 };
      let runs = 0;
      for (let kill = 1; kill <= KILLS; kill++) {
        const life = await liveAndDie(kind, location, journal);
        phases[life.phase]++;
        await settle?.(location);
        const store = await open(location, reports);
        try {
          runs = await check(store, readJournal(journal));
        } finally {
          await store.close();
        }
      }
      const lines = readJournal(journal);
      const acked = lines.filter((l) => l.k === 'ack').length;
      const resent = lines.filter((l) => l.k === 'send' && l.again).length;
      const unexpected = reports.filter(
        (r) => !Object.values(CRASH_ARTIFACTS).some((pattern) => pattern.test(r.reason)),
      );
      const artifacts = Object.entries(CRASH_ARTIFACTS)
        .map(([name, pattern]) => `${reports.filter((r) => pattern.test(r.reason)).length} ${name}`)
        .join(', ');
      expect(unexpected, 'reports that no crash explains').toEqual([]);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(
        `crash test ${kind}: ${KILLS} kills (${phases.restoring} while restoring, ${phases.running} while running), ${acked} events acknowledged, ` +
          `${resent} in flight at a kill and sent again with their idempotency key, ${runs} runs checked, ${seconds} s${kind === 'json-file' ? `; repaired on open: ${artifacts}` : ''}`,
      );
    });
  }
});
