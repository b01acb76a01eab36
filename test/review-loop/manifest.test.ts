import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reviewLoop } from '../../machines/review-loop/index.js';
import {
  loadManifest,
  ManifestError,
  manifestBackupPath,
  manifestPath,
  readManifest,
  withRunState,
  writeManifest,
  type Manifest,
} from '../../src/review-loop/manifest.js';
import {
  fromRunState,
  RUN_STATES,
  toRunState,
  UnknownStateError,
  type RunState,
} from '../../src/review-loop/run-state.js';
import { builtProgram, endWithTest } from '../support/child-processes.js';

const manifest = (overrides: Partial<Manifest> = {}): Manifest => ({
  version: 1,
  runId: 'run-1',
  repoPath: '/repo',
  state: 'submitted',
  iteration: 0,
  settings: {
    prompt: 'fix the flaky test',
    maxIterations: 20,
    reviewMode: 'claudex',
    doneSignal: 'DONE',
    primary: { name: 'codex', command: ['examples/agents/loop-primary.sh'] },
    reviewer: { name: 'claude', command: ['examples/agents/loop-reviewer.sh'] },
  },
  sessions: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'statewright-manifest-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const failure = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error as ManifestError;
  }
  throw new Error('expected a rejection');
};

describe('the run-state mapping', () => {
  it('maps every loop state to its run state and back', () => {
    expect(Object.fromEntries(reviewLoop.states.map((s) => [s, toRunState(s)]))).toEqual({
      init: 'submitted',
      working: 'working',
      reviewing: 'reviewing',
      complete: 'completed',
      failed: 'failed',
    });
    for (const state of reviewLoop.states) expect(fromRunState(toRunState(state))).toBe(state);
  });

  it('reads a cancelled run as failed, and refuses states it does not know', () => {
    expect(fromRunState('cancelled')).toBe('failed');
    expect(RUN_STATES).toContain('cancelled');
    expect(() => fromRunState('paused' as RunState)).toThrow(UnknownStateError);
    expect(() => fromRunState('paused' as RunState)).toThrow(
      /'paused' is not a run state; expected one of submitted, working/,
    );
    expect(() => fromRunState('toString' as RunState)).toThrow(UnknownStateError);
    expect(() => toRunState('done' as never)).toThrow(/'done' is not a review loop state/);
  });
});

describe('the manifest', () => {
  it('is written and read back, private to its owner, with no temporary file left behind', async () => {
    await writeManifest(dir, manifest());
    expect(await readManifest(manifestPath(dir))).toEqual(manifest());
    expect((await stat(manifestPath(dir))).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['manifest.json']);
    expect(await readFile(manifestPath(dir), 'utf8')).toMatch(/^\{\n {2}"version": 1,/);
  });

  it('keeps the copy it replaces as the backup', async () => {
    await writeManifest(dir, manifest());
    await writeManifest(dir, manifest({ state: 'working', iteration: 1 }));
    expect((await readManifest(manifestBackupPath(dir))).state).toBe('submitted');
    expect((await readManifest(manifestPath(dir))).iteration).toBe(1);
    expect((await readdir(dir)).sort()).toEqual(['manifest.json', 'manifest.json.bak']);
  });

  it('reports a torn manifest with its path and reason and uses the last good copy', async () => {
    await writeManifest(dir, manifest({ state: 'working', iteration: 1 }));
    await writeManifest(dir, manifest({ state: 'reviewing', iteration: 1 }));
    await truncate(manifestPath(dir), 100);
    const error = await failure(readManifest(manifestPath(dir)));
    expect(error).toBeInstanceOf(ManifestError);
    expect(error.path).toBe(manifestPath(dir));
    expect(error.reason).toMatch(/not valid JSON .*truncated/);
    expect(error.message).toContain(manifestPath(dir));

    const loaded = await loadManifest(dir);
    expect(loaded.path).toBe(manifestBackupPath(dir));
    expect([loaded.manifest.state, loaded.manifest.iteration]).toEqual(['working', 1]);
    expect(loaded.problems).toEqual([{ path: manifestPath(dir), reason: expect.stringMatching(/truncated/) }]);
  });

  it.each([
    ['', 'the file is empty'],
    ['{"version": 1, "runId": "x"', 'not valid JSON'],
    ['[1, 2]', 'not a valid manifest'],
    [JSON.stringify({ ...manifest(), state: 'paused' }), 'not a valid manifest: state:'],
    [JSON.stringify({ ...manifest(), iteration: -1 }), 'iteration:'],
    [JSON.stringify({ ...manifest(), version: 2 }), 'version:'],
    [JSON.stringify({ ...manifest(), createdAt: 'yesterday' }), 'createdAt:'],
    [JSON.stringify({ ...manifest(), surprise: true }), 'surprise'],
  ])('names what is wrong with %j', async (content, reason) => {
    await writeFile(manifestPath(dir), content);
    const error = await failure(readManifest(manifestPath(dir)));
    expect(error).toBeInstanceOf(ManifestError);
    expect(error.reason).toContain(reason);
  });

  it('names both files when neither the manifest nor its backup can be used', async () => {
    await writeFile(manifestPath(dir), '{');
    await writeFile(manifestBackupPath(dir), '');
    const error = await failure(loadManifest(dir));
    expect(error.attempts).toEqual([
      { path: manifestPath(dir), reason: expect.stringContaining('not valid JSON') },
      { path: manifestBackupPath(dir), reason: 'the file is empty' },
    ]);
    expect(error.message).toContain(manifestBackupPath(dir));
  });

  it('reports a run that has no manifest', async () => {
    const error = await failure(loadManifest(dir));
    expect([error.path, error.reason]).toEqual([manifestPath(dir), 'no such file']);
  });

  it('refuses to write a manifest that does not validate, leaving the good one', async () => {
    await writeManifest(dir, manifest());
    const error = await failure(writeManifest(dir, manifest({ iteration: 1.5 })));
    expect(error.reason).toMatch(/not written.*iteration/);
    expect((await readManifest(manifestPath(dir))).iteration).toBe(0);
  });

  it('stamps updatedAt on every state change and completedAt only when the run is over', () => {
    const start = Date.UTC(2026, 0, 2);
    const working = withRunState(manifest(), 'working', start, { iteration: 1 });
    expect(working).toMatchObject({ state: 'working', iteration: 1, updatedAt: '2026-01-02T00:00:00.000Z' });
    expect(working.completedAt).toBeUndefined();
    const failed = withRunState(working, 'failed', start + 1000, { error: 'max iterations reached' });
    expect(failed).toMatchObject({ completedAt: '2026-01-02T00:00:01.000Z', error: 'max iterations reached' });
    expect(withRunState(manifest(), 'completed', start).completedAt).toBe('2026-01-02T00:00:00.000Z');
  });

  it('is never torn when the writing process is killed with SIGKILL mid-write', async () => {
    await writeManifest(dir, manifest({ runId: 'crash' }));
    for (let round = 0; round < 2; round++) {
      const child = spawn(
        process.execPath,
        [builtProgram(join(import.meta.dirname, 'fixtures/write-manifests.ts')), dir, String(256 * 1024)],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
          detached: true,
        },
      );
      endWithTest(child.pid);
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 20 + round * 15));
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      const loaded = await loadManifest(dir);
      expect(loaded.problems).toEqual([]);
      expect(loaded.manifest.iteration).toBeGreaterThanOrEqual(3);
      expect(loaded.manifest.settings.prompt).toHaveLength(256 * 1024);
    }
  });
});
