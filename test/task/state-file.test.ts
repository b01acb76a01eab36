import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { taskMachine, taskView, type TaskView } from '../../machines/task/index.js';
import {
  parseStateFile,
  readStateFile,
  STATE_SCHEMA_VERSION,
  StateFileError,
  writeStateFile,
} from '../../src/task/state-file.js';
import { testDir } from '../stores/temp-dir.js';
import { startProgram } from '../support/child-processes.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'statewright-state-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const NOW = Date.UTC(2026, 4, 1, 12, 0, 0);

function reviewingView(): TaskView {
  const actor = createActor(taskMachine).start();
  for (const event of [
    { type: 'create_task', agent: 'supervisor:claude:1', task: 'Add a flag' },
    { type: 'check', agent: 'executor:codex:1' },
    { type: 'check_passed', agent: 'checker:statewright:1' },
    { type: 'submit', agent: 'executor:codex:1', summary: 'Added it' },
  ] as const) {
    actor.send(event);
  }
  return taskView(actor.getSnapshot());
}

describe('STATE.json', () => {
  it('holds the task view stamped with the schema version, updated_at, the owner pid and the lease', async () => {
    const path = join(dir, 'STATE.json');
    const lease = { claimedBy: 'supervisor:claude:1', leaseUntil: NOW + 90_000, lastHeartbeat: NOW } as const;
    const written = await writeStateFile(path, reviewingView(), { now: NOW, pid: 4242, lease });
    const text = await readFile(path, 'utf8');
    expect(JSON.parse(text)).toEqual({
      schema_version: STATE_SCHEMA_VERSION,
      state: 'Reviewing',
      task: 'Add a flag',
      submission: 'Added it',
      check_retries: 0,
      review_cycles: 0,
      max_check_retries: 20,
      max_review_cycles: 3,
      claimed_by: 'supervisor:claude:1',
      lease_until: '2026-05-01T12:01:30.000Z',
      last_heartbeat: '2026-05-01T12:00:00.000Z',
      updated_at: '2026-05-01T12:00:00.000Z',
      owner_pid: 4242,
    });
    expect(text.endsWith('}\n')).toBe(true);
    expect(await readStateFile(path)).toEqual(written);
  });

  it('is stamped with this process when no pid is given, and leaves no temporary file behind', async () => {
    const path = join(dir, 'own.json');
    await writeStateFile(path, reviewingView(), { now: NOW });
    expect((await readStateFile(path))?.owner_pid).toBe(process.pid);
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('names the path when it cannot be written, and leaves nothing half-written', async () => {
    const path = join(dir, 'missing-dir', 'STATE.json');
    await expect(writeStateFile(path, reviewingView(), { now: NOW })).rejects.toThrow(
      new RegExp(`^${path}: could not be written: ENOENT`),
    );
  });

  it('is read back as undefined when absent, and refused with the path and the reason when unusable', async () => {
    expect(await readStateFile(join(dir, 'absent.json'))).toBeUndefined();
    const truncated = join(dir, 'truncated.json');
    await writeFile(truncated, '{"schema_version": 1, "state": "Ex');
    await expect(readStateFile(truncated)).rejects.toThrow(
      new RegExp(`^${truncated}: is not valid JSON .*it may be truncated$`),
    );
    expect(() => parseStateFile(JSON.stringify({ schema_version: 1, state: 'Sleeping' }), 'S.json')).toThrow(
      /^S\.json: is not a task state file: state: .*; check_retries: .*updated_at: .*owner_pid: /,
    );
    expect(() => parseStateFile(JSON.stringify({ schema_version: 2 }), 'S.json')).toThrow(
      'S.json: has schema_version 2, newer than this statewright reads (1): upgrade statewright',
    );
    const error = (() => {
      try {
        parseStateFile('[]', 'S.json');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(StateFileError);
    expect(error).toMatchObject({ path: 'S.json' });
  });

  it('is never seen torn by a reader while another process rewrites it, nor after that process is killed mid-write', async () => {
    const path = join(dir, 'contended.json');
    const writer = startProgram(new URL('./fixtures/state-writer.ts', import.meta.url), [path], { reject: false });
    await new Promise<void>((resolve, reject) => {
      writer.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      void writer.then((result) => reject(new Error(`the writer ended early: ${result.stderr}`)));
    });
    const versions: number[] = [];
    try {
      while (versions.length < 300) {
        const state = parseStateFile(await readFile(path, 'utf8'), path); // throws on a torn file
        const [version, padding] = state.check_feedback!.split(' ');
        expect(padding).toHaveLength(256 * 1024);
        versions.push(Number(version));
      }
    } finally {
      writer.kill('SIGKILL');
    }
    expect((await writer).signal).toBe('SIGKILL');
    expect(versions).toEqual([...versions].sort((a, b) => a - b)); // renames land in order
    expect(new Set(versions).size).toBeGreaterThan(1); // the writer really was writing meanwhile
    const last = await readStateFile(path);
    expect(Number(last!.check_feedback!.split(' ')[0])).toBeGreaterThanOrEqual(versions.at(-1)!);
  });

  it('never replaces a newer file with an older view, whichever writer renames last', async () => {
    const path = join(testDir('state-order'), 'STATE.json');
    await writeStateFile(path, reviewingView(), { now: NOW, seq: 7 });
    const older = await writeStateFile(path, { ...reviewingView(), state: 'Executing' } as never, {
      now: NOW + 1,
      seq: 6,
    });
    expect(older).toMatchObject({ seq: 7, state: reviewingView().state });
    expect(await readStateFile(path)).toMatchObject({ seq: 7, state: reviewingView().state });
    await writeStateFile(path, { ...reviewingView(), state: 'Executing' } as never, { now: NOW + 2, seq: 8 });
    expect(await readStateFile(path)).toMatchObject({ seq: 8, state: 'Executing' });
  });
});
