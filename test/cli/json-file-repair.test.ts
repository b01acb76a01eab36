/**
 * The read commands never change a json-file store: `status`, `history` and `verify` on a damaged
 * store report what they found, name `statewright repair`, and leave every file byte for byte as it
 * was. `repair` is what repairs, and it never rolls a run back past its newest intact state: the
 * acknowledged state in snapshot.json is kept, and the lost log line is named as a hole.
 */
import { readdirSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { jsonFileStore } from '../../src/stores/json-file/json-file-store.js';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
const cli = (cwd: string, ...args: string[]) =>
  startCommand(process.execPath, [bin, ...args, '--store', 'json:runs'], { cwd, reject: false });

/** Every file under `dir` with its bytes (base64), so two moments can be compared exactly. */
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory())
      Object.assign(out, Object.fromEntries(Object.entries(files(path)).map(([k, v]) => [join(name, k), v])));
    else out[name] = readFileSync(path).toString('base64');
  }
  return out;
}

describe('a damaged json-file store', () => {
  it('is only reported by status, history and verify (files byte-identical); repair repairs it and keeps the newest acknowledged state', async () => {
    const cwd = testDir('cli-repair');
    const store = jsonFileStore(join(cwd, 'runs'));
    const runtime = await createRuntime({ store, machines: lifecycles });
    await runtime.start('execution', { id: 'j' });
    for (const type of ['ENQUEUE', 'START', 'RECOVER'] as const) await runtime.dispatch('j', { type });
    await runtime.close();
    await store.close();
    // The log loses the end of its last line after that commit was acknowledged.
    const log = join(cwd, 'runs/runs/j/events.jsonl');
    truncateSync(log, statSync(log).size - 25);
    const damaged = files(join(cwd, 'runs'));

    const status = await cli(cwd, 'status');
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toMatch(/\nj\s+execution\s+recovering\s+active\s+3\s/);
    expect(status.stderr).toContain('the log lost seq 3; kept snapshot.json (seq 3)');
    expect(status.stderr).toContain(
      `in memory only: the store is read-only; \`statewright repair --store json:${join(cwd, 'runs')}\` repairs the files`,
    );
    expect(files(join(cwd, 'runs')), 'status changed no file').toEqual(damaged);

    const history = await cli(cwd, 'history', 'j');
    expect([history.exitCode, history.stdout.split('\n').length]).toEqual([0, 2]);
    expect(history.stderr).toContain('statewright repair');
    expect(files(join(cwd, 'runs')), 'history changed no file').toEqual(damaged);

    const verify = await cli(cwd, 'verify');
    expect(verify.exitCode).toBe(1);
    expect(verify.stdout).toContain(
      "seq 3: the log has no event for seq 3 (a hole in the run's history: those events were lost)",
    );
    expect(files(join(cwd, 'runs')), 'verify changed no file').toEqual(damaged);

    const repair = await cli(cwd, 'repair');
    expect(repair.exitCode).toBe(0);
    expect(repair.stdout).toMatch(
      /events\.jsonl: line 4: the last \d+ bytes are an incomplete line \(no newline\); set the \d+ bytes after seq 2 aside in events\.jsonl\.discarded/,
    );
    expect(repair.stdout).toContain(
      'kept snapshot.json (seq 3), the newest intact state of the run; its history has a hole at seq 3',
    );
    expect(repair.stdout).toMatch(/1 run\(s\) read; 2 problem\(s\) found/);
    expect(readdirSync(join(cwd, 'runs/runs/j'))).toContain('events.jsonl.discarded');

    // Nothing acknowledged was rolled back: the run goes on from seq 3, and verify still names the hole.
    expect((await cli(cwd, 'send', 'j', '{"type":"START"}')).stdout).toBe('j: running (active, 4 events)');
    const after = await cli(cwd, 'verify');
    expect(after.stdout).toContain('seq 3: the log has no event for seq 3');
    expect((await cli(cwd, 'repair')).stdout).toMatch(
      /there is no valid line for seq 3;[^\n]*\n1 run\(s\) read; 1 problem\(s\) found/,
    );
  });
});
