import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointError, createCheckpoint } from '../../src/codon/git-checkpoint.js';
import { isolateGit, makeRepo } from '../support/git-repo.js';

beforeAll(isolateGit);
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

const request = (workTree: string) => ({
  workTree,
  type: 'completed' as const,
  runId: 'run-1',
  codonId: 'research',
  attempt: 'run-1/research/1',
});

describe('git checkpoints', () => {
  it('commit every change in the work tree, untracked files included, and return the new HEAD', async () => {
    const repo = await makeRepo();
    cleanups.push(repo.remove);
    writeFileSync(join(repo.dir, 'README'), 'changed\n');
    writeFileSync(join(repo.dir, 'notes.md'), 'new\n');
    const checkpoint = await createCheckpoint(request(repo.dir));
    expect(checkpoint).toEqual({ sha: await repo.git('rev-parse', 'HEAD'), branch: 'main', created: true });
    expect(await repo.git('status', '--porcelain')).toBe('');
    expect((await repo.git('show', '--name-only', '--format=', 'HEAD')).split('\n').sort()).toEqual([
      'README',
      'notes.md',
    ]);
    expect(await repo.git('log', '-1', '--format=%an <%ae>%n%B')).toBe(
      'statewright <statewright@localhost>\nstatewright: completed checkpoint of research (run run-1)\n\nStatewright-Checkpoint: run-1/research/1 completed',
    );
  });

  it("use the repository's own author when it has one", async () => {
    const repo = await makeRepo();
    cleanups.push(repo.remove);
    await repo.git('config', 'user.name', 'Ada');
    await repo.git('config', 'user.email', 'ada@example.com');
    await createCheckpoint(request(repo.dir));
    expect(await repo.git('log', '-1', '--format=%an <%ae>')).toBe('Ada <ada@example.com>');
  });

  it('are made once: asked again (a restarted actor), they return the commit already at HEAD', async () => {
    const repo = await makeRepo();
    cleanups.push(repo.remove);
    const first = await createCheckpoint(request(repo.dir));
    const again = await createCheckpoint(request(repo.dir));
    expect(again).toEqual({ ...first, created: false });
    expect(await repo.git('rev-list', '--count', 'HEAD')).toBe('2');
    // Another type or attempt is another checkpoint, even with nothing changed.
    const error = await createCheckpoint({ ...request(repo.dir), type: 'error' });
    expect(error.sha).not.toBe(first.sha);
  });

  it('fail with the reason git gives', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'statewright-not-a-repo-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const failure = createCheckpoint(request(dir));
    await expect(failure).rejects.toBeInstanceOf(CheckpointError);
    await expect(failure).rejects.toThrow(/^git add failed in .*: fatal: not a git repository/);
  });
});
