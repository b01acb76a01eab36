/**
 * Set-aside runs from the command line: `status` lists them with their reason, `end` ends one
 * recording who and why, and `history` shortens an event too large to read in a terminal.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/stores/sqlite-store.js';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
const cli = (cwd: string, ...args: string[]) => startCommand(process.execPath, [bin, ...args], { cwd, reject: false });

describe('set-aside runs on the command line', () => {
  it('are listed by status with their reason, and ended by end with who and why', async () => {
    const cwd = testDir('cli-set-aside');
    await cli(cwd, 'start', 'execution', '--id', 'kept');
    // A newer statewright (execution v9) wrote this run, and the deployment was rolled back. (Its
    // row is written by a runtime, not edited: the store checksums every row.)
    const store = sqliteStore(join(cwd, '.statewright/state.db'));
    const newer = await createRuntime({ store, machines: { ...lifecycles, execution: { ...lifecycles.execution, version: 9 } }, recover: false });
    await newer.start('execution', { id: 'newer' });
    await newer.close();
    await store.close();

    const status = await cli(cwd, 'status');
    expect(status.exitCode).toBe(0);
    const [table, setAside] = status.stdout.split('\n\n');
    // Newest first: 'newer' was started after 'kept'.
    expect(table).toMatch(/\nnewer\s+execution\s+pending\s+active\s+0\s.*\nkept\s+execution\s+pending\s+active\s+0\s/);
    expect(setAside).toMatch(/^1 set aside: the registry cannot restore it\. .*`statewright end <run> --reason \.\.\.`\.\nRUN\s+MACHINE\s+STATE\s+VERSION\s+REASON\nnewer\s+execution\s+pending\s+v9\s+Run 'newer' was stored by execution v9, but this runtime has execution v1\./);
    expect(setAside).toContain('A newer definition wrote it');

    // check --store holds the registry against the store, without a runtime.
    const check = await cli(cwd, 'check', '--store', 'sqlite:.statewright/state.db');
    expect(check.exitCode).toBe(1);
    expect(check.stdout).toMatch(/\nexecution: stranded run 'newer' in 'pending' \(v9\): Run 'newer' was stored by execution v9.*\n1 live run\(s\) in sqlite:\.statewright\/state\.db stranded: register a migration, or end them/);
    const checkJson = JSON.parse((await cli(cwd, 'check', '--json', '--store', 'sqlite:.statewright/state.db')).stdout) as { ok: boolean; stranded: unknown[] };
    expect(checkJson).toMatchObject({ ok: false, stranded: [{ runId: 'newer', machine: 'execution', state: 'pending', version: 9, reason: expect.stringContaining('v9') }] });

    const sent = await cli(cwd, 'send', 'newer', '{"type":"ENQUEUE"}');
    expect([sent.exitCode, sent.stderr]).toEqual([1, "statewright: Run 'newer' is set aside: Run 'newer' was stored by execution v9, but this runtime has execution v1. A newer definition wrote it: run the version of statewright and the registry that stored it. It takes no events until it is moved on by a registered migration (restart with the lifecycle's `migrations` or definition fixed) or ended by a person (`statewright end newer --reason ...`)."]);
    const notStranded = await cli(cwd, 'end', 'kept', '--reason', 'tidy');
    expect([notStranded.exitCode, notStranded.stderr]).toEqual([1, expect.stringMatching(/^statewright: Run 'kept' is not set aside/)]);
    const noReason = await cli(cwd, 'end', 'newer');
    expect(noReason.exitCode).toBe(2);
    expect(noReason.stderr).toMatch(/--reason/);

    const ended = await cli(cwd, 'end', 'newer', '--reason', 'rolled back; rerun it', '--actor', 'ana');
    expect([ended.exitCode, ended.stdout]).toEqual([0, 'newer: ended in pending by ana (stopped, 1 events)']);
    expect((await cli(cwd, 'history', 'newer')).stdout).toMatch(/^\s+1 {2}\S+ {2}pending --statewright\.ended--> pending {2}by ana \(rolled back; rerun it\)$/);
    const after = await cli(cwd, 'status');
    expect(after.stdout).toMatch(/\nnewer\s+execution\s+pending\s+stopped\s+1\s/);
    expect(after.stdout).not.toMatch(/set aside/);
    const clean = await cli(cwd, 'check', '--store', 'sqlite:.statewright/state.db');
    expect([clean.exitCode, clean.stdout.split('\n').at(-1)]).toEqual([0, 'no live run in sqlite:.statewright/state.db is stranded by the registry']);
  });

  it('history shortens an event too large to read, and --json prints it whole', async () => {
    const cwd = testDir('cli-set-aside');
    await cli(cwd, 'start', 'execution', '--id', 'big');
    const note = 'n'.repeat(100_000);
    expect((await cli(cwd, 'send', 'big', JSON.stringify({ type: 'ENQUEUE', note }))).exitCode).toBe(0);
    const line = (await cli(cwd, 'history', 'big')).stdout;
    expect(line.length).toBeLessThan(1000);
    expect(line).toMatch(/--ENQUEUE--> queued \{"note":"n+\.\.\. \[100011 bytes, shortened: `history --json` prints it whole\]$/);
    const json = JSON.parse((await cli(cwd, 'history', 'big', '--json')).stdout) as { event: { note: string } };
    expect(json.event.note).toBe(note);
  });
});
