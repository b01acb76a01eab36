/**
 * What every command shares (issue 33): `--version`, `--json` on every command that prints a
 * result, the environment variables for the store, the server and its token, and `task status
 * --json` agreeing with `task status`. The built bin, a real process per call.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { runCli } from '../../src/cli/run-cli.js';
import { packageVersion, PackageJsonMissingError } from '../../src/cli/package-version.js';
import { createRuntime } from '../../src/runtime/index.js';
import { machineJson } from '../../src/serve/machine-json.js';
import { jsonFileStore } from '../../src/stores/json-file/json-file-store.js';
import { memoryStore } from '../../src/stores/memory/memory-store.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { plainRow, type Commit, type Store } from '../../src/stores/store.js';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';
import { startServeProcess } from '../support/serve-process.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
/** The environment variables of this issue, unset (empty is unset) unless a test sets them. */
const UNSET = { STATEWRIGHT_STORE: '', STATEWRIGHT_SERVER: '', STATEWRIGHT_TOKEN: '' };
const cli = (cwd: string, args: string[], env: Record<string, string> = {}) =>
  startCommand(process.execPath, [bin, ...args], { cwd, reject: false, env: { ...UNSET, ...env } });
const ownVersion = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

describe('--version', () => {
  it('prints the version of the package, with -V too, and exits 0', async () => {
    const cwd = testDir('cli-version');
    for (const flag of ['--version', '-V']) {
      const shown = await cli(cwd, [flag]);
      expect([shown.exitCode, shown.stdout, shown.stderr]).toEqual([0, ownVersion, '']);
    }
    // In-process too, and named in the help.
    let out = '';
    const io = { stdin: Readable.from([]), writeOut: (text: string) => void (out += text), writeErr: () => {} };
    expect(await runCli(['--version'], io)).toBe(0);
    expect(out).toBe(`${ownVersion}\n`);
    out = '';
    await runCli(['--help'], io);
    expect(out).toMatch(/-V, --version +print the version of statewright/);
  });

  it('reads the package.json of the package it runs from, wherever it is installed, past other package.json files', () => {
    const root = mkdtempSync(join(tmpdir(), 'statewright-version-'));
    try {
      const installed = join(root, 'node_modules', 'statewright');
      mkdirSync(join(installed, 'dist', 'src', 'cli'), { recursive: true });
      writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: 'statewright', version: '9.8.7' }));
      // A package.json of another name on the way up (dist/ of some builds has one) is passed over.
      writeFileSync(join(installed, 'dist', 'package.json'), JSON.stringify({ type: 'module' }));
      const module = pathToFileURL(join(installed, 'dist', 'src', 'cli', 'program.js'));
      expect(packageVersion(module)).toBe('9.8.7');
      const nowhere = pathToFileURL(join(root, 'elsewhere', 'program.js'));
      expect(() => packageVersion(nowhere)).toThrow(PackageJsonMissingError);
      expect(() => packageVersion(nowhere)).toThrow(/cannot find its own package\.json .*Reinstall it/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('--json', () => {
  it('start and send print {run} as the HTTP API answers, machines lists the lifecycles with their verification, verify every run', async () => {
    const cwd = testDir('cli-json');
    const started = await cli(cwd, ['start', 'execution', '--id', 'j1', '--input', '{"name":"build"}', '--json']);
    expect(started.exitCode).toBe(0);
    expect(started.stdout.split('\n')).toHaveLength(1);
    const { run } = JSON.parse(started.stdout);
    expect(run).toMatchObject({
      runId: 'j1',
      machine: 'execution',
      version: 1,
      status: 'active',
      state: 'pending',
      seq: 0,
      input: { name: 'build' },
      owner: { pid: expect.any(Number), host: expect.any(String) },
      lease: { state: 'released' },
      wakeAt: null,
    });
    expect(run.snapshot).toBeUndefined();

    const sent = await cli(cwd, ['send', 'j1', 'ENQUEUE', '--actor', 'me', '--json']);
    expect([sent.exitCode, JSON.parse(sent.stdout).run]).toEqual([
      0,
      expect.objectContaining({ runId: 'j1', state: 'queued', status: 'active', seq: 1 }),
    ]);
    // What status --json lists for it now.
    const listed = JSON.parse((await cli(cwd, ['status', '--json'])).stdout).runs[0];
    expect({ ...JSON.parse(sent.stdout).run, lease: undefined }).toEqual({ ...listed, lease: undefined });

    const machines = await cli(cwd, ['machines', '--json']);
    expect(machines.exitCode).toBe(0);
    const listedMachines = JSON.parse(machines.stdout);
    expect(listedMachines).toMatchObject({ ok: true, config: null });
    expect(listedMachines.machines.map((m: { name: string }) => m.name)).toEqual(Object.keys(lifecycles));
    expect(listedMachines.machines[0]).toEqual({
      ...machineJson('execution', lifecycles.execution),
      verification: { ok: true, unreachable: [], deadEnds: [], finalWithExits: [] },
    });

    // history --json: one object per event, and nothing but JSON (no events: no lines).
    await cli(cwd, ['start', 'execution', '--id', 'j0']);
    expect((await cli(cwd, ['history', 'j0', '--json'])).stdout).toBe('');
    expect((await cli(cwd, ['history', 'j0'])).stdout).toBe('no events yet');

    const verified = await cli(cwd, ['verify', '--json', 'j1']);
    expect([verified.exitCode, JSON.parse(verified.stdout)]).toEqual([
      0,
      { ok: true, runs: [{ runId: 'j1', machine: 'execution', ok: true, mismatches: [] }], store: [] },
    ]);
    // A refusal is an error as without --json: on stderr, with its exit code, nothing on stdout.
    const refused = await cli(cwd, ['send', 'j1', 'SUCCEED', '--json']);
    expect([refused.exitCode, refused.stdout]).toEqual([1, '']);
    expect(refused.stderr).toMatch(/^statewright: Invalid transition: cannot apply event 'SUCCEED'/);
  });

  it('verify --json names each run whose log does not explain its snapshot, and exits 1', async () => {
    const cwd = testDir('cli-json-verify');
    await cli(cwd, ['start', 'execution', '--id', 'good', '--store', 'json:runs', '--create']);
    const store = jsonFileStore(join(cwd, 'runs'));
    try {
      await writtenWrong(store, 'bad');
    } finally {
      await store.close();
    }
    const verified = await cli(cwd, ['verify', '--json', '--store', 'json:runs']);
    expect(verified.exitCode).toBe(1);
    const report = JSON.parse(verified.stdout);
    expect(report.ok).toBe(false);
    expect(report.store).toEqual([]);
    const byId = Object.fromEntries(report.runs.map((r: { runId: string }) => [r.runId, r]));
    expect(byId.good).toEqual({ runId: 'good', machine: 'execution', ok: true, mismatches: [] });
    expect(byId.bad).toMatchObject({
      runId: 'bad',
      machine: 'execution',
      ok: false,
      mismatches: [
        { kind: 'snapshot', message: 'replay ends with value "queued", the stored snapshot has "running"' },
        { kind: 'snapshot', message: "the run is stored in state 'running', replay ends in 'queued'" },
      ],
    });
    // The text says the same.
    const text = await cli(cwd, ['verify', '--store', 'json:runs']);
    expect([text.exitCode, text.stdout]).toEqual([1, expect.stringContaining('1 of 2 runs replay')]);
  });

  it('end --json prints the ended run', async () => {
    const cwd = testDir('cli-json-end');
    // A run stored by execution v9, which this registry (v1) cannot restore: set aside.
    const store = sqliteStore(join(cwd, 'state.db'));
    const v9 = await createRuntime({
      store,
      machines: { ...lifecycles, execution: { ...lifecycles.execution, version: 9 } },
      recover: false,
      owner: { pid: spawnSync(process.execPath, ['-e', '']).pid!, pidStart: 'gone' },
    });
    await v9.start('execution', { id: 'newer' });
    await v9.close();
    await store.close();
    const ended = await cli(cwd, ['end', 'newer', '--reason', 'rolled back', '--actor', 'ana', '--json'], {
      STATEWRIGHT_STORE: 'sqlite:state.db',
    });
    expect([ended.exitCode, ended.stderr]).toEqual([0, '']);
    expect(JSON.parse(ended.stdout).run).toMatchObject({
      runId: 'newer',
      machine: 'execution',
      version: 9,
      status: 'stopped',
      state: 'pending',
      seq: 1,
    });
  });
});

describe('environment variables', () => {
  it("STATEWRIGHT_STORE is the store without --store, before the config's store and the default", async () => {
    const cwd = testDir('cli-env-store');
    const ids = async (store: string) =>
      JSON.parse((await cli(cwd, ['status', '--json', '--store', store])).stdout).runs.map(
        (r: { runId: string }) => r.runId,
      );
    // No config: the default store, then the environment's.
    expect((await cli(cwd, ['start', 'execution', '--id', 'default'])).exitCode).toBe(0);
    expect(
      (await cli(cwd, ['start', 'execution', '--id', 'env'], { STATEWRIGHT_STORE: 'sqlite:env.db' })).exitCode,
    ).toBe(0);
    expect(await ids('sqlite:env.db')).toEqual(['env']);
    expect(await ids('sqlite:.statewright/state.db')).toEqual(['default']);
    // A config naming a store: the environment's still comes first, --store before both.
    writeFileSync(join(cwd, 'statewright.config.mjs'), "export default { machines: [], store: 'sqlite:config.db' };\n");
    await cli(cwd, ['start', 'execution', '--id', 'config']);
    await cli(cwd, ['start', 'execution', '--id', 'env-2'], { STATEWRIGHT_STORE: 'sqlite:env.db' });
    await cli(cwd, ['start', 'execution', '--id', 'flag', '--store', 'sqlite:flag.db', '--create'], {
      STATEWRIGHT_STORE: 'sqlite:env.db',
    });
    expect(await ids('sqlite:config.db')).toEqual(['config']);
    expect((await ids('sqlite:env.db')).sort()).toEqual(['env', 'env-2']);
    expect(await ids('sqlite:flag.db')).toEqual(['flag']);
    // Every command that opens a store reads it: verify, history.
    const verify = await cli(cwd, ['verify'], { STATEWRIGHT_STORE: 'sqlite:env.db' });
    expect(verify.stdout).toBe('2 of 2 runs replay to their stored snapshot.');
    // A store it names that does not exist is refused by a command that makes none, naming the variable.
    const typo = await cli(cwd, ['history', 'env'], { STATEWRIGHT_STORE: 'sqlite:evn.db' });
    expect([typo.exitCode, typo.stderr]).toEqual([
      2,
      expect.stringMatching(
        /^statewright: No store at .*\/evn\.db: STATEWRIGHT_STORE=sqlite:evn\.db names nothing that exists\. Check the path for a typo/,
      ),
    ]);
    // check takes --store as a request to hold the registry against a store: the variable does not ask for that.
    const check = JSON.parse((await cli(cwd, ['check', '--json'], { STATEWRIGHT_STORE: 'sqlite:env.db' })).stdout);
    expect(check.stranded).toBeUndefined();
    for (const command of ['start', 'status', 'verify', 'serve'])
      expect((await cli(cwd, [command, '--help'])).stdout.replace(/\s+/g, ' ')).toContain(
        "without --store, the one $STATEWRIGHT_STORE names, else the config's store",
      );
  });

  it('STATEWRIGHT_SERVER is the server start and send go through without --server, STATEWRIGHT_TOKEN its token', async () => {
    const token = 'a-token-of-our-own-1234';
    const serve = await startServeProcess(testDir('cli-env-serve'), ['--store', 'sqlite:served.db', '--create'], {
      STATEWRIGHT_TOKEN: token,
    });
    // Another folder: no server file beside its store, so nothing but the variables leads to the server.
    const cwd = testDir('cli-env-server');
    const noToken = await cli(cwd, ['start', 'execution', '--id', 's1'], { STATEWRIGHT_SERVER: serve.url });
    expect(noToken.exitCode).toBe(1);
    expect(noToken.stderr).toMatch(/^statewright: .*token/i);
    const withToken = { STATEWRIGHT_SERVER: serve.url, STATEWRIGHT_TOKEN: token };
    const started = await cli(cwd, ['start', 'execution', '--id', 's1'], withToken);
    expect([started.exitCode, started.stdout]).toEqual([0, `s1: pending (on ${serve.url})`]);
    const sent = await cli(cwd, ['send', 's1', 'ENQUEUE', '--json'], withToken);
    expect([sent.exitCode, JSON.parse(sent.stdout).run]).toEqual([
      0,
      expect.objectContaining({ runId: 's1', state: 'queued', seq: 1 }),
    ]);
    const startedJson = await cli(cwd, ['start', 'execution', '--id', 's2', '--json'], withToken);
    expect(JSON.parse(startedJson.stdout).run).toMatchObject({ runId: 's2', state: 'pending', seq: 0 });
    // Nothing was stored here.
    expect(existsSync(join(cwd, '.statewright'))).toBe(false);
    // --server and --token come first.
    const flags = await cli(cwd, ['send', 's2', 'ENQUEUE', '--server', serve.url, '--token', token], {
      STATEWRIGHT_SERVER: 'http://127.0.0.1:9',
      STATEWRIGHT_TOKEN: 'not-the-token-at-all',
    });
    expect([flags.exitCode, flags.stdout]).toEqual([0, `s2: queued (active, 1 events, on ${serve.url})`]);
    const nowhere = await cli(cwd, ['send', 's2', 'START'], { STATEWRIGHT_SERVER: 'http://127.0.0.1:9' });
    expect([nowhere.exitCode, nowhere.stderr]).toEqual([
      1,
      expect.stringMatching(/does not answer .*or check --server \(or STATEWRIGHT_SERVER\)\.$/),
    ]);
    for (const command of ['start', 'send']) {
      const help = (await cli(cwd, [command, '--help'])).stdout.replace(/\s+/g, ' ');
      expect(help).toContain('(default $STATEWRIGHT_SERVER, else one serving --store');
      expect(help).toContain('(default $STATEWRIGHT_TOKEN, else the one in the server');
    }
  });
});

describe('task status --json', () => {
  it('prints the task task status shows, as STATE.json holds it, also when STATE.json is missing or behind', async () => {
    const dir = testDir('cli-task-status');
    writeFileSync(join(dir, 'ferrus.toml'), '[checks]\ncommands = ["true"]\n');
    const task = (...args: string[]) => cli(dir, ['task', ...args, '--dir', dir]);
    expect((await task('create', 'Write done.txt', '--as', 'supervisor:claude:1')).exitCode).toBe(0);
    const written = readFileSync(join(dir, 'STATE.json'), 'utf8');
    // With STATE.json in step, it is that file.
    const status = await task('status', '--json');
    expect([status.exitCode, JSON.parse(status.stdout)]).toEqual([0, JSON.parse(written)]);

    // STATE.json removed (or never written: a task moved by another tool): the store's task, as a writer would put it.
    rmSync(join(dir, 'STATE.json'));
    const missing = await task('status', '--json');
    expect(missing.exitCode).toBe(0);
    const rebuilt = JSON.parse(missing.stdout);
    expect(rebuilt).toEqual({ ...JSON.parse(written), updated_at: expect.any(String), owner_pid: expect.any(Number) });
    expect((await task('status')).stdout.split('\n').slice(0, 2)).toEqual([
      'task is Executing',
      'task: Write done.txt',
    ]);
    // status changes nothing: still no STATE.json.
    expect(existsSync(join(dir, 'STATE.json'))).toBe(false);

    // A STATE.json behind the store (a process stopped between its commit and the file): the store's task.
    await task('claim', '--as', 'executor:codex:1');
    writeFileSync(join(dir, 'STATE.json'), written);
    const behind = JSON.parse((await task('status', '--json')).stdout);
    expect(behind).toMatchObject({ state: 'Executing', claimed_by: 'executor:codex:1', seq: rebuilt.seq + 1 });
  });
});

/**
 * Writes run `runId` to `store` with a snapshot its log does not lead to: a runtime starts it and
 * sends ENQUEUE (pending -> queued) on a memory store, and the last commit reaches `store` saying running.
 */
async function writtenWrong(store: Store, runId: string): Promise<void> {
  const commits: Commit[] = [];
  const memory = memoryStore();
  const recording: Store = {
    ...memory,
    leases: undefined,
    commit: (batch) => (commits.push(...batch), memory.commit(batch)),
  };
  const rt = await createRuntime({ store: recording, machines: lifecycles, recover: false });
  await rt.start('execution', { id: runId });
  await rt.dispatch(runId, { type: 'ENQUEUE' });
  await rt.close();
  for (const [index, { lease: _lease, wakeAt: _wakeAt, ...commit }] of commits.entries()) {
    const row = plainRow(commit.run);
    const last = index === commits.length - 1;
    const snapshot = row.snapshot as Record<string, unknown>;
    await store.commit([
      {
        ...commit,
        run: last ? { ...row, state: 'running', snapshot: { ...snapshot, value: 'running' } } : row,
      },
    ]);
  }
}
