/**
 * Set-aside runs from the command line: `status` lists them with their reason, `end` ends one
 * recording who and why, and `history` shortens an event too large to read in a terminal.
 */
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { lifecycles } from '../../machines/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { jsonFileStore } from '../../src/stores/json-file/json-file-store.js';
import { memoryStore } from '../../src/stores/memory/memory-store.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { plainRow, type Commit, type Store } from '../../src/stores/store.js';
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
const cli = (cwd: string, ...args: string[]) => startCommand(process.execPath, [bin, ...args], { cwd, reject: false });

describe('set-aside runs on the command line', () => {
  it('are listed by status with their reason, and ended by end with who and why', async () => {
    const cwd = testDir('cli-set-aside');
    await cli(cwd, 'start', 'execution', '--id', 'kept');
    // A newer statewright (execution v9) wrote this run, and the deployment was rolled back. (Its
    // rows are checksummed, so the run is written by a runtime of that version, not edited in.)
    const store = sqliteStore(join(cwd, '.statewright/state.db'));
    const v9 = await createRuntime({
      store,
      machines: { ...lifecycles, execution: { ...lifecycles.execution, version: 9 } },
      recover: false,
      owner: { pid: spawnSync(process.execPath, ['-e', '']).pid!, pidStart: 'gone' },
    });
    await v9.start('execution', { id: 'newer' });
    await v9.close();
    await store.close();

    const status = await cli(cwd, 'status');
    expect(status.exitCode).toBe(0);
    const [table, setAside] = status.stdout.split('\n\n');
    // Newest first: 'newer' was started after 'kept'.
    expect(table).toMatch(/\nnewer\s+execution\s+pending\s+active\s+0\s.*\nkept\s+execution\s+pending\s+active\s+0\s/);
    expect(setAside).toMatch(
      /^1 set aside: the registry cannot restore it\. .*`statewright end <run> --reason \.\.\.`\.\nRUN\s+MACHINE\s+STATE\s+VERSION\s+REASON\nnewer\s+execution\s+pending\s+v9\s+Run 'newer' was stored by execution v9, but this runtime has execution v1\./,
    );
    expect(setAside).toContain('A newer definition wrote it');

    // check --store holds the registry against the store, without a runtime.
    const check = await cli(cwd, 'check', '--store', 'sqlite:.statewright/state.db');
    expect(check.exitCode).toBe(1);
    expect(check.stdout).toMatch(
      /\nexecution: stranded run 'newer' in 'pending' \(v9\): Run 'newer' was stored by execution v9.*\n1 live run\(s\) in sqlite:\.statewright\/state\.db stranded: add the machine or a migration to its version in statewright.config.ts, or end them/,
    );
    const checkJson = JSON.parse(
      (await cli(cwd, 'check', '--json', '--store', 'sqlite:.statewright/state.db')).stdout,
    ) as { ok: boolean; stranded: unknown[] };
    expect(checkJson).toMatchObject({
      ok: false,
      stranded: [
        { runId: 'newer', machine: 'execution', state: 'pending', version: 9, reason: expect.stringContaining('v9') },
      ],
    });

    const sent = await cli(cwd, 'send', 'newer', '{"type":"ENQUEUE"}');
    expect([sent.exitCode, sent.stderr]).toEqual([
      1,
      "statewright: Run 'newer' is set aside: Run 'newer' was stored by execution v9, but this runtime has execution v1. A newer definition wrote it: run the version of statewright and the registry that stored it. It takes no events until it is moved on by a registered migration (restart with the lifecycle's `migrations` or definition fixed) or ended by a person (`statewright end newer --reason ...`).",
    ]);
    const notStranded = await cli(cwd, 'end', 'kept', '--reason', 'tidy');
    expect([notStranded.exitCode, notStranded.stderr]).toEqual([
      1,
      expect.stringMatching(/^statewright: Run 'kept' is not set aside/),
    ]);
    const noReason = await cli(cwd, 'end', 'newer');
    expect(noReason.exitCode).toBe(2);
    expect(noReason.stderr).toMatch(/--reason/);

    const ended = await cli(cwd, 'end', 'newer', '--reason', 'rolled back; rerun it', '--actor', 'ana');
    expect([ended.exitCode, ended.stdout]).toEqual([0, 'newer: ended in pending by ana (stopped, 1 events)']);
    expect((await cli(cwd, 'history', 'newer')).stdout).toMatch(
      /^\s+1 {2}\S+ {2}pending --statewright\.ended--> pending {2}by ana \(rolled back; rerun it\)$/,
    );
    const after = await cli(cwd, 'status');
    expect(after.stdout).toMatch(/\nnewer\s+execution\s+pending\s+stopped\s+1\s/);
    expect(after.stdout).not.toMatch(/set aside/);
    const clean = await cli(cwd, 'check', '--store', 'sqlite:.statewright/state.db');
    expect([clean.exitCode, clean.stdout.split('\n').at(-1)]).toEqual([
      0,
      'no live run in sqlite:.statewright/state.db is stranded by the registry',
    ]);
  });

  for (const kind of ['sqlite', 'json'] as const) {
    it(`name a run whose id the runtime refuses, stored before ids were checked (${kind}): status lists it set aside, verify names it`, async () => {
      const cwd = testDir('cli-malformed-id');
      const target = kind === 'sqlite' ? 'sqlite:.statewright/state.db' : 'json:runs';
      await cli(cwd, 'start', 'execution', '--id', 'kept', '--store', target, '--create');
      const store =
        kind === 'sqlite' ? sqliteStore(join(cwd, '.statewright/state.db')) : jsonFileStore(join(cwd, 'runs'));
      try {
        for (const id of ['lone\ud800', 'rlo\u202eevil', '..']) await writtenPastTheRuntime(store, id);
      } finally {
        await store.close();
      }

      const status = await cli(cwd, 'status', '--store', target);
      expect([status.exitCode, status.stderr]).toEqual([0, '']);
      const [table, setAside] = status.stdout.split('\n\n');
      // Shown quoted, with what a terminal would hide or act on escaped.
      for (const shown of ['"lone\\ud800"', '"rlo\\u202eevil"', '".."'])
        expect(table).toMatch(new RegExp(`\n${escapeRegExp(shown)}\\s+execution\\s+queued\\s+active\\s+1\\s`));
      expect(table).toMatch(/\nkept\s+execution\s+pending\s+active\s+0\s/);
      expect(setAside).toMatch(/^3 set aside: /);
      for (const [shown, problem] of [
        ['"lone\\ud800"', 'it holds U+D800, a lone surrogate (not well-formed Unicode), at index 4'],
        ['"rlo\\u202eevil"', 'it holds U+202E, an invisible format character, at index 3'],
        ['".."', 'it is "." or "..", which a path or a URL reads as a folder, not a name'],
      ]) {
        expect(setAside).toMatch(
          new RegExp(
            `\n${escapeRegExp(shown!)}\\s+execution\\s+queued\\s+v1\\s+its run id is malformed \\(${escapeRegExp(problem!)}\\): every runtime call refuses such an id`,
          ),
        );
      }

      const verify = await cli(cwd, 'verify', '--store', target);
      expect([verify.exitCode, verify.stderr]).toEqual([1, '']);
      expect(verify.stdout.split('\n').sort()).toEqual(
        [
          '"lone\\ud800": its run id is malformed (it holds U+D800, a lone surrogate (not well-formed Unicode), at index 4), so a runtime sets the run aside and no call can name it',
          '"rlo\\u202eevil": its run id is malformed (it holds U+202E, an invisible format character, at index 3), so a runtime sets the run aside and no call can name it',
          '"..": its run id is malformed (it is "." or "..", which a path or a URL reads as a folder, not a name), so a runtime sets the run aside and no call can name it',
          '4 of 4 runs replay to their stored snapshot.',
          '3 run(s) have a malformed id: written before run ids were checked, they take no events.',
        ].sort(),
      );
      // A command that names it is refused, saying why, and changes nothing.
      const sent = await cli(cwd, 'send', '..', '{"type":"START"}', '--store', target);
      expect([sent.exitCode, sent.stderr]).toEqual([
        1,
        expect.stringMatching(/^statewright: Invalid run id: .*because it is "\." or "\.\."/),
      ]);
      expect((await cli(cwd, 'verify', 'kept', '--store', target)).stdout).toBe(
        '1 of 1 runs replay to their stored snapshot.',
      );
    });
  }

  it('history shortens an event too large to read, and --json prints it whole', async () => {
    const cwd = testDir('cli-set-aside');
    await cli(cwd, 'start', 'execution', '--id', 'big');
    const note = 'n'.repeat(100_000);
    expect((await cli(cwd, 'send', 'big', JSON.stringify({ type: 'ENQUEUE', note }))).exitCode).toBe(0);
    const line = (await cli(cwd, 'history', 'big')).stdout;
    expect(line.length).toBeLessThan(1000);
    expect(line).toMatch(
      /--ENQUEUE--> queued \{"note":"n+\.\.\. \[100011 bytes, shortened: `history --json` prints it whole\]$/,
    );
    const json = JSON.parse((await cli(cwd, 'history', 'big', '--json')).stdout) as { event: { note: string } };
    expect(json.event.note).toBe(note);
  });
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Writes a run as statewright did before it checked ids: a runtime starts and moves on a run under
 * a stand-in id, and its commits reach `store` with `runId` in its place (leases left out).
 */
async function writtenPastTheRuntime(store: Store, runId: string): Promise<void> {
  const commits: Commit[] = [];
  const memory = memoryStore();
  const recording: Store = {
    ...memory,
    leases: undefined,
    commit: (batch) => (commits.push(...batch), memory.commit(batch)),
  };
  const rt = await createRuntime({ store: recording, machines: lifecycles, recover: false });
  await rt.start('execution', { id: 'stand-in' });
  await rt.dispatch('stand-in', { type: 'ENQUEUE' });
  await rt.close();
  for (const { lease: _lease, wakeAt: _wakeAt, ...commit } of commits) {
    await store.commit([
      {
        ...commit,
        run: { ...plainRow(commit.run), runId },
        ...(commit.event && { event: { ...commit.event, runId } }),
      },
    ]);
  }
}
