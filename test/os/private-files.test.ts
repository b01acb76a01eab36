/**
 * Another user of the machine reads none of statewright's files: under umask 000 (which would make
 * every file the libraries create readable and writable by all), each file-based store, its WAL,
 * a session's transcript, stderr, pid record and decisions, and a review loop's files are created
 * 0600 in 0700 folders; a store left with wider modes by an older statewright is tightened when it
 * is opened, with one line on stderr saying so. A real agent process writes the transcript.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ev } from '../machines/session-fixtures.js';
import { createAgentProcess } from '../../src/actors/agent-process.js';
import { ManualClock } from '../../src/actor-contract/clock.js';
import { workerActors } from '../../src/restate/worker-actors.js';
import { LoopRecord } from '../../src/review-loop/loop-record.js';
import { resolveLoopSettings } from '../../src/review-loop/settings.js';
import { jsonFileStore } from '../../src/stores/json-file/json-file-store.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { seed } from '../stores/conformance.js';
import { testDir } from '../stores/temp-dir.js';
import { reaches, startDaemon } from '../support/session-daemon.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs the test's file creation under `mask`, the umask restored after. */
function withUmask(mask: number): void {
  const before = process.umask(mask);
  cleanups.push(() => process.umask(before));
}

/** Every path under `root` (itself included) with its permission bits, as "path 0700". */
function modes(root: string): string[] {
  const found: string[] = [];
  const visit = (path: string) => {
    const stats = lstatSync(path);
    found.push(`${path.slice(root.length) || '/'} ${(stats.mode & 0o777).toString(8).padStart(4, '0')}`);
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return found;
}

/** The paths of `modes(root)` that another user could read or write, or a folder not 0700 / file not 0600. */
function notPrivate(root: string): string[] {
  return modes(root).filter((line) => {
    const path = join(root, line.slice(0, line.lastIndexOf(' ')));
    const mode = lstatSync(path).mode & 0o777;
    return mode !== (lstatSync(path).isDirectory() ? 0o700 : 0o600);
  });
}

/** What the code under test writes to stderr while `body` runs (the tightening line). */
async function stderrOf(body: () => unknown): Promise<string> {
  const write = process.stderr.write.bind(process.stderr);
  let text = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    text += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    await body();
  } finally {
    process.stderr.write = write;
  }
  return text;
}

describe('files under umask 000', () => {
  it('a SQLite store: .statewright/ 0700, state.db, its -wal and -shm 0600', async () => {
    const root = testDir('private-sqlite');
    withUmask(0);
    const store = sqliteStore(join(root, '.statewright', 'state.db'));
    cleanups.push(() => store.close());
    await seed(store, 'r1', 3);
    const found = modes(join(root, '.statewright'));
    // The WAL and the wal-index exist while the store is open: they are what another user would read.
    expect(found).toEqual(
      expect.arrayContaining(['/ 0700', '/state.db 0600', '/state.db-wal 0600', '/state.db-shm 0600']),
    );
    expect(notPrivate(join(root, '.statewright'))).toEqual([]);
  });

  it('a json-file store: every folder 0700, every file 0600', async () => {
    const root = testDir('private-json');
    withUmask(0);
    const store = jsonFileStore(join(root, 'runs-store'));
    cleanups.push(() => store.close());
    await seed(store, 'r1', 3);
    await seed(store, 'r2', 1);
    const found = modes(join(root, 'runs-store'));
    expect(found).toEqual(expect.arrayContaining(['/runs/r1/events.jsonl 0600', '/runs/r1/snapshot.json 0600']));
    expect(found.length).toBeGreaterThan(8);
    expect(notPrivate(join(root, 'runs-store'))).toEqual([]);
  });

  it("a session's transcript, stderr, pid record and decisions, written by a real agent process and the daemon", async () => {
    const root = testDir('private-session');
    withUmask(0);
    const store = sqliteStore(join(root, '.statewright', 'state.db'));
    const daemon = await startDaemon({
      store,
      logDir: join(root, '.statewright', 'sessions'),
      agent: createAgentProcess({ pollMs: 20 }),
      activity: false,
    });
    cleanups.push(async () => {
      await daemon.close({ timeoutMs: 2_000 });
      await daemon.runtime.close();
      await store.close();
    });
    await daemon.launch({
      id: 's1',
      query: 'Wait.',
      config: { command: ['sh', '-c', 'echo "{\\"type\\":\\"note\\"}"; echo oops >&2; exec sleep 60'] },
    });
    await daemon.runtime.dispatch('s1', ev.session());
    const { approval } = await daemon.requestApproval('s1', { tool_name: 'Bash', tool_input: { command: 'make' } });
    await daemon.approve('s1', approval.approval_id);
    await daemon.interrupt('s1', { reason: 'the test is done' });
    await reaches(daemon, 's1', ['failed']);
    const found = modes(join(root, '.statewright', 'sessions'));
    expect(found).toEqual(
      expect.arrayContaining([
        '/ 0700',
        '/s1.jsonl 0600',
        '/s1.jsonl.stderr 0600',
        '/s1.jsonl.pid 0600',
        '/s1.jsonl.decisions 0600',
      ]),
    );
    expect(notPrivate(join(root, '.statewright'))).toEqual([]);
  });

  it("a review loop's manifest, transcript and messages", async () => {
    const root = testDir('private-loop');
    withUmask(0);
    const runDir = join(root, 'loops', 'loop-1');
    const settings = resolveLoopSettings({ prompt: 'Implement it.', primary: { command: ['true'] } });
    const record = await LoopRecord.create(runDir, 'loop-1', settings, {
      clock: new ManualClock(Date.parse('2026-11-28T12:00:00Z')),
      repoPath: root,
    });
    await record.close();
    expect(modes(runDir).length).toBeGreaterThan(3);
    expect(notPrivate(join(root, 'loops'))).toEqual([]);
  });
});

describe('a store made readable by others', () => {
  it('SQLite: tightened at open, with one line saying so; opened again, nothing to say', async () => {
    const root = testDir('tighten-sqlite');
    const home = join(root, '.statewright');
    const path = join(home, 'state.db');
    const first = sqliteStore(path);
    await seed(first, 'r1', 2);
    // Left open, as a crashed process would leave it: its -wal and -shm stay.
    for (const file of ['state.db', 'state.db-wal', 'state.db-shm']) chmodSync(join(home, file), 0o644);
    chmodSync(home, 0o755);
    await first.close();
    writeFileSync(`${path}-wal`, '', { flag: 'a', mode: 0o644 });
    chmodSync(`${path}-wal`, 0o644);

    let second: ReturnType<typeof sqliteStore> | undefined;
    const said = await stderrOf(() => {
      second = sqliteStore(path);
    });
    cleanups.push(() => second?.close());
    expect(said.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(`^statewright: the SQLite store ${path} could be read by other users .*was 0755.*: [2-4] paths now`),
      ),
    ]);
    expect(notPrivate(home)).toEqual([]);
    expect((await second!.load('r1'))?.seq).toBe(2);
    await second!.close();
    expect(await stderrOf(() => sqliteStore(path).close())).toBe('');
  });

  it('json-file: every folder and file under it tightened at open, with one line saying so', async () => {
    const root = testDir('tighten-json');
    const dir = join(root, 'store');
    const first = jsonFileStore(dir);
    await seed(first, 'r1', 2);
    await first.close();
    const widen = (path: string) => {
      const directory = lstatSync(path).isDirectory();
      chmodSync(path, directory ? 0o755 : 0o644);
      if (directory) for (const name of readdirSync(path)) widen(join(path, name));
    };
    widen(dir);
    expect(notPrivate(dir).length).toBeGreaterThan(4);

    let second: ReturnType<typeof jsonFileStore> | undefined;
    const said = await stderrOf(() => {
      second = jsonFileStore(dir);
    });
    cleanups.push(() => second?.close());
    expect(said.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^statewright: the json-file store ${dir} could be read by other users`)),
    ]);
    expect(notPrivate(dir)).toEqual([]);
    expect((await second!.load('r1'))?.seq).toBe(2);
  });

  it("a Restate worker's home: its agents' transcripts and loops folders tightened when it starts, with one line", async () => {
    const home = join(testDir('tighten-worker'), '.statewright');
    for (const dir of [home, join(home, 'sessions'), join(home, 'loops')])
      mkdirSync(dir, { recursive: true, mode: 0o755 });
    writeFileSync(join(home, 'sessions', 's-1.jsonl'), '{}\n', { mode: 0o644 });
    for (const dir of [home, join(home, 'sessions'), join(home, 'loops')]) chmodSync(dir, 0o755);
    const said = await stderrOf(() => workerActors({ machines: {}, home, taskDir: home }));
    expect(said).toMatch(
      new RegExp(`^statewright: the worker's agent logs in ${home} could be read by other users .*: 3 paths now`),
    );
    for (const dir of [home, join(home, 'sessions'), join(home, 'loops')])
      expect(lstatSync(dir).mode & 0o777).toBe(0o700);
  });
});
