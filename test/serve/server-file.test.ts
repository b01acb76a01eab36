/**
 * The server files of several hosts on one store (`<store>.serve/<host id>.json`): each host keeps
 * its own, a live host's id cannot be taken, a dead one's file is replaced, and the CLI finds them
 * all, the one started last first.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { thisHost } from '../../src/os/process-identity.js';
import {
  HostIdInUseError,
  readServerFileOf,
  readServerFiles,
  removeServerFile,
  serverFilePath,
  writeServerFile,
} from '../../src/serve/server-file.js';
import { testDir } from '../stores/temp-dir.js';

/** A pid no process has any more. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

describe('server files, one per host', () => {
  it('keeps each host its own file, lists the live ones newest first, and removes only its own', () => {
    const dir = join(testDir('server-files'), 'state.db.serve');
    const a = writeServerFile(dir, { hostId: 'a', url: 'http://127.0.0.1:4001', token: undefined });
    const b = writeServerFile(dir, { hostId: 'worker/b:1', url: 'http://127.0.0.1:4002', token: 'secret-9876' });
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'worker%2Fb%3A1.json']);
    expect(readServerFileOf(dir, 'worker/b:1')).toEqual(b);
    // The token is there for this user's CLI, and for nobody else: the file is 0600, its folder 0700.
    expect(b).toMatchObject({ hostId: 'worker/b:1', pid: process.pid, host: thisHost(), token: 'secret-9876' });
    expect(a.token).toBeNull();
    expect(statSync(serverFilePath(dir, 'worker/b:1')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    // Newest first; equal start times keep both.
    const listed = readServerFiles(dir);
    expect(listed.map((f) => f.hostId).sort()).toEqual(['a', 'worker/b:1']);
    expect(listed[0]!.startedAt).toBeGreaterThanOrEqual(listed[1]!.startedAt);

    // A file another process wrote under the same id is not this process's to remove.
    writeFileSync(
      serverFilePath(dir, 'c'),
      JSON.stringify({ ...a, hostId: 'c', pid: process.ppid, pidStart: 'unknown' }),
    );
    removeServerFile(dir, 'c');
    expect(readServerFileOf(dir, 'c')).toMatchObject({ hostId: 'c', pid: process.ppid });
    removeServerFile(dir, 'a');
    expect(readServerFileOf(dir, 'a')).toBeUndefined();
    expect(
      readServerFiles(dir)
        .map((f) => f.hostId)
        .sort(),
    ).toEqual(['c', 'worker/b:1']);
  });

  it('refuses the id of a live host with HostIdInUseError, and replaces the file of a dead one', () => {
    const dir = join(testDir('server-files'), 'state.db.serve');
    writeServerFile(dir, { hostId: 'a', url: 'http://127.0.0.1:4001', token: undefined });
    let refused: unknown;
    try {
      writeServerFile(dir, { hostId: 'a', url: 'http://127.0.0.1:4009', token: undefined });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(HostIdInUseError);
    expect((refused as Error).message).toBe(
      `Host id 'a' is taken: the statewright serve at http://127.0.0.1:4001 (pid ${process.pid}) runs under it on this store. ` +
        'Two hosts of one id would both count as the holder of its runs: give this one another --host-id, or stop that one first.',
    );
    expect(readServerFileOf(dir, 'a')?.url).toBe('http://127.0.0.1:4001');

    // A host that crashed left its file: it is not listed, and the next host of that id takes its place.
    const crashed = {
      hostId: 'b',
      url: 'http://127.0.0.1:4002',
      pid: deadPid(),
      pidStart: 'gone',
      host: thisHost(),
      token: null,
      startedAt: Date.now(),
    };
    writeFileSync(serverFilePath(dir, 'b'), JSON.stringify(crashed));
    expect(readServerFileOf(dir, 'b')).toBeUndefined();
    expect(readServerFiles(dir).map((f) => f.hostId)).toEqual(['a']);
    writeServerFile(dir, { hostId: 'b', url: 'http://127.0.0.1:4003', token: undefined });
    expect(readServerFileOf(dir, 'b')).toMatchObject({ url: 'http://127.0.0.1:4003', pid: process.pid });
    // Nothing is left behind by the writes: no temporary files.
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'b.json']);
  });

  it('ignores a damaged file and a file from before host ids', () => {
    const dir = join(testDir('server-files'), 'state.db.serve');
    writeServerFile(dir, { hostId: 'a', url: 'http://127.0.0.1:4001', token: undefined });
    writeFileSync(join(dir, 'torn.json'), '{"hostId": "torn", "url": ');
    writeFileSync(
      join(dir, 'old.json'),
      JSON.stringify({ url: 'http://127.0.0.1:4005', pid: process.pid, host: thisHost() }),
    );
    expect(readServerFiles(dir).map((f) => f.hostId)).toEqual(['a']);
    expect(readServerFiles(join(dir, 'missing'))).toEqual([]);
  });

  it("trusts no file that another user owns or may write: it could point the CLI, token and all, at someone else's server", () => {
    const dir = join(testDir('server-files'), 'state.db.serve');
    writeServerFile(dir, { hostId: 'a', url: 'http://127.0.0.1:4001', token: 'token-of-host-a-1234' });
    const planted = {
      hostId: 'p',
      url: 'http://127.0.0.1:4666',
      pid: process.pid,
      pidStart: 'unknown',
      host: thisHost(),
      token: null,
      startedAt: Date.now() + 1000,
    };
    writeFileSync(serverFilePath(dir, 'p'), JSON.stringify(planted));
    expect(readServerFiles(dir).map((f) => f.hostId)).toEqual(['p', 'a']);
    chmodSync(serverFilePath(dir, 'p'), 0o666);
    expect(readServerFiles(dir).map((f) => f.hostId)).toEqual(['a']);
    chmodSync(serverFilePath(dir, 'p'), 0o644);
    // Only root can give a file away; CI runs as root.
    if (process.getuid?.() === 0) {
      chownSync(serverFilePath(dir, 'p'), 65534, 65534);
      expect(readServerFileOf(dir, 'p')).toBeUndefined();
      expect(readServerFiles(dir).map((f) => f.hostId)).toEqual(['a']);
    }
  });
});
