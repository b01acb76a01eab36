/** The `statewright` command as a user runs it: the built bin, a real process per call. */
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
const cli = (cwd: string, ...args: string[]) => startCommand(process.execPath, [bin, ...args], { cwd, reject: false });

describe('the statewright command', () => {
  it('starts a run, sends events, shows status and history, and verifies the store', async () => {
    const cwd = testDir('cli');
    expect((await cli(cwd, 'start', 'execution', '--id', 'job-1')).stdout).toBe('job-1: pending');
    expect((await cli(cwd, 'send', 'job-1', '{"type":"ENQUEUE"}', '--actor', 'me', '--reason', 'manual')).stdout).toBe(
      'job-1: queued (active, 1 events)',
    );
    expect((await cli(cwd, 'send', 'job-1', '{"type":"START"}')).stdout).toBe('job-1: running (active, 2 events)');
    const status = await cli(cwd, 'status');
    expect(status.stdout).toMatch(
      /^RUN\s+MACHINE\s+STATE\s+STATUS\s+EVENTS\s+UPDATED\njob-1\s+execution\s+running\s+active\s+2\s/,
    );
    const history = (await cli(cwd, 'history', 'job-1')).stdout.split('\n');
    expect(history[0]).toMatch(/^\s+1 .* pending --ENQUEUE--> queued {2}by me \(manual\)$/);
    expect(history[1]).toMatch(/^\s+2 .* queued --START--> running$/);
    expect((await cli(cwd, 'verify')).stdout).toBe('1 of 1 runs replay to their stored snapshot.');
  });

  it('refuses what it cannot do with a clear message and a non-zero exit, changing nothing', async () => {
    const cwd = testDir('cli');
    await cli(cwd, 'start', 'execution', '--id', 'job-1');
    const unknownRun = await cli(cwd, 'send', 'nope', '{"type":"START"}');
    expect([unknownRun.exitCode, unknownRun.stderr]).toEqual([
      1,
      "statewright: Unknown run 'nope': no run with this id exists in the store. Check the id with `statewright status`.",
    ]);
    const badJson = await cli(cwd, 'send', 'job-1', '{type:START}');
    expect(badJson.exitCode).toBe(2);
    expect(badJson.stderr).toMatch(/The event is not valid JSON .*Example: '\{"type":"START"\}'/);
    const refused = await cli(cwd, 'send', 'job-1', '{"type":"SUCCEED"}');
    expect([refused.exitCode, refused.stderr]).toEqual([
      1,
      "statewright: Invalid transition: cannot apply event 'SUCCEED' in state 'pending'; 'pending' accepts ENQUEUE, CANCEL, SKIP, HOLD, WAIT",
    ]);
    expect((await cli(cwd, 'history', 'nope')).stderr).toMatch(/Unknown run 'nope'/);
    const verifyUnknown = await cli(cwd, 'verify', 'job-1', 'nope');
    expect([verifyUnknown.exitCode, verifyUnknown.stdout, verifyUnknown.stderr]).toEqual([
      1,
      '',
      expect.stringMatching(/^statewright: Unknown run 'nope'/),
    ]);
    expect((await cli(cwd, 'status', '--store', 'redis:x')).stderr).toMatch(/Unknown store 'redis:x'/);
    expect((await cli(cwd, 'history', 'job-1')).stdout).toBe('no events yet');
    // A lifecycle whose agents must run, with no serve to host them: refused, saying how to start one, nothing stored.
    const noServer = await cli(cwd, 'start', 'codon', '--id', 'codon-1');
    expect([noServer.exitCode, noServer.stderr]).toEqual([
      1,
      'statewright: No statewright serve is running for this store, and codon runs need one: their agents, checks and timers run only in a host. Start one with `npx statewright serve` and run this again (or give --server <url>).',
    ]);
    expect((await cli(cwd, 'status')).stdout).not.toMatch(/codon-1/);
  });

  it("works on the json-file store, and verify finds a snapshot changed behind the store's back", async () => {
    const cwd = testDir('cli');
    await cli(cwd, 'start', 'execution', '--id', 'j', '--store', 'json:runs', '--create');
    expect((await cli(cwd, 'send', 'j', '{"type":"SKIP"}', '--store', 'json:runs')).stdout).toBe(
      'j: skipped (done, 1 events)',
    );
    expect((await cli(cwd, 'verify', '--store', 'json:runs')).exitCode).toBe(0);

    await cli(cwd, 'start', 'execution', '--id', 'tampered');
    const db = new Database(join(cwd, '.statewright/state.db'));
    db.prepare(
      `UPDATE runs SET snapshot = json_set(snapshot, '$.value', 'running'), state = 'running' WHERE run_id = 'tampered'`,
    ).run();
    db.close();
    // On SQLite the run's checksum no longer matches: verify names the run and the file.
    const verify = await cli(cwd, 'verify');
    expect(verify.exitCode).toBe(1);
    expect(verify.stderr).toMatch(
      /The store file .*state\.db is corrupt: run tampered: its row in the runs table is not what was written \(checksum\)/,
    );
  });
});

describe('the command line around stores and servers', () => {
  it('refuses an empty --id, a --store path that names nothing (unless --create), and a --server that does not answer', async () => {
    const cwd = testDir('cli-store');
    const emptyId = await cli(cwd, 'start', 'execution', '--id', '');
    expect([emptyId.exitCode, emptyId.stderr]).toEqual([
      2,
      "statewright: --id '' is empty: give the run an id, or leave --id out to get a generated one.",
    ]);
    const typo = await cli(cwd, 'status', '--store', 'sqlite:stat.db');
    expect([typo.exitCode, typo.stderr]).toEqual([
      2,
      expect.stringMatching(
        /^statewright: No store at .*\/stat\.db: --store sqlite:stat\.db names nothing that exists\. Check the path for a typo, or give --create/,
      ),
    ]);
    expect((await cli(cwd, 'start', 'execution', '--id', 'j1', '--store', 'json:runz')).exitCode).toBe(2);
    expect(existsSync(join(cwd, 'stat.db')) || existsSync(join(cwd, 'runz'))).toBe(false);
    // A port nothing listens on any more.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const nowhere = await cli(
      cwd,
      'send',
      'j1',
      '{"type":"ENQUEUE"}',
      '--server',
      `http://127.0.0.1:${port}`,
      '--store',
      'sqlite:stat.db',
    );
    expect([nowhere.exitCode, nowhere.stderr]).toEqual([
      1,
      expect.stringMatching(
        /^statewright: The statewright serve at http:\/\/127\.0\.0\.1:\d+ does not answer \(ECONNREFUSED\)\. Is it running\?/,
      ),
    ]);
  });

  it('lists runs newest first, with their owners when --verbose, as --json, by --state, up to --limit', async () => {
    const cwd = testDir('cli-status');
    const store = ['--store', 'sqlite:runs.db'];
    expect((await cli(cwd, 'start', 'execution', '--id', 'j1', ...store, '--create')).stdout).toBe('j1: pending');
    expect((await cli(cwd, 'start', 'execution', '--id', 'j2', ...store)).stdout).toBe('j2: pending');
    expect((await cli(cwd, 'send', 'j2', '{"type":"ENQUEUE"}', ...store)).stdout).toBe('j2: queued (active, 1 events)');
    expect((await cli(cwd, 'start', 'execution', '--id', 'j3', ...store)).stdout).toBe('j3: pending');
    const listed = JSON.parse((await cli(cwd, 'status', '--json', ...store)).stdout).runs;
    expect(listed.map((r: { runId: string }) => r.runId)).toEqual(['j3', 'j2', 'j1']);
    expect(listed[0]).toMatchObject({
      runId: 'j3',
      machine: 'execution',
      state: 'pending',
      seq: 0,
      owner: { pid: expect.any(Number), host: expect.any(String) },
    });
    expect(listed[0].snapshot).toBeUndefined();
    expect(
      JSON.parse((await cli(cwd, 'status', '--json', '--state', 'queued', ...store)).stdout).runs.map(
        (r: { runId: string }) => r.runId,
      ),
    ).toEqual(['j2']);
    const limited = (await cli(cwd, 'status', '--limit', '2', '--verbose', ...store)).stdout.split('\n');
    expect(limited).toHaveLength(4);
    expect(limited[0]).toMatch(
      /^RUN\s+MACHINE\s+STATE\s+STATUS\s+EVENTS\s+UPDATED\s+OWNER\s+HOLDER\s+EPOCH\s+HEARTBEAT$/,
    );
    // Each CLI process that committed has exited: its owner shows as gone, and it let go of the run's lease.
    expect(limited[1]).toMatch(
      /^j3\s+execution\s+pending\s+active\s+0\s+\S+\s+\S+:\d+ \(gone\)\s+\S+:\d+:[0-9a-f]+ \(asleep\)\s+1\s+.* ago$/,
    );
    expect(limited[3]).toBe('1 more run (3 in all): --limit <n> shows the newest n, --all every run');
  });
});
