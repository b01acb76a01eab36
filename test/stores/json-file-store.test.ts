import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonFileStore, type JsonFileStore } from '../../src/stores/json-file/json-file-store.js';
import { folderName } from '../../src/stores/json-file/run-log.js';
import {
  RunIdClashError,
  StoreCorruptionError,
  StoreFormatError,
  StoreLockedError,
  StoreReadOnlyError,
  type CorruptionReport,
} from '../../src/stores/store-errors.js';
import { create, record, row, seed, step, storeConformance } from './conformance.js';
import { tempDir } from './temp-dir.js';

storeConformance({
  name: 'json-file',
  durable: true,
  async fresh() {
    const dir = await tempDir('json');
    const reports: CorruptionReport[] = [];
    const openStore = () => jsonFileStore(dir.path, { onCorruption: (r) => reports.push(r) });
    let store: JsonFileStore = openStore();
    return {
      get store() {
        return store;
      },
      async reopen() {
        await store.close();
        store = openStore();
        return store;
      },
      warnings: () => reports,
      async dispose() {
        await store.close();
        await dir.remove();
      },
    };
  },
});

describe('json-file store: files and recovery', () => {
  let dir: { path: string; remove(): Promise<void> };
  let reports: CorruptionReport[];
  const open = (options: { readOnly?: boolean } = {}) =>
    jsonFileStore(dir.path, { onCorruption: (r) => reports.push(r), ...options });
  const folder = (runId: string) => join(dir.path, 'runs', folderName(runId));
  const file = (runId: string, name: string) => join(folder(runId), name);
  const lines = async (runId: string) =>
    (await readFile(file(runId, 'events.jsonl'), 'utf8')).split('\n').filter(Boolean);
  let store: JsonFileStore | undefined;

  beforeEach(async () => {
    dir = await tempDir('json-recovery');
    reports = [];
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    await dir.remove();
  });

  /** Writes a run with `n` events, closes the store: the files are as a clean shutdown leaves them. */
  async function written(runId: string, n: number): Promise<void> {
    const writer = open();
    await seed(writer, runId, n);
    await writer.close();
  }

  it('names no folder as Windows names a device, or with a trailing dot; older stores keep their names, and their device-named folders are renamed at open', async () => {
    const devices = ['nul', 'aux.txt', 'com1', 'CON', 'prn.json', 'lpt9', 'nul.', 'a.', 'a ', `nul.${'x'.repeat(200)}`];
    const plain = ['r1', 'a.b', 'x'.repeat(256)];
    for (const id of [...devices, ...plain]) await written(id, 1);
    const names = await readdir(join(dir.path, 'runs'));
    expect(names.filter((name) => /^(con|prn|aux|nul|com\d|lpt\d)(\.|~|$)/i.test(name) || /[. ]$/.test(name))).toEqual(
      [],
    );
    // Reversible: a folder's name, percent-decoded, is its run's id (but for ids long enough to be hashed).
    for (const id of [...devices, ...plain].filter((id) => id.length < 100))
      expect(decodeURIComponent(folderName(id))).toBe(id);
    // Names that were never reserved are what they were: existing stores are read as they are.
    expect(plain.slice(0, 2).map(folderName)).toEqual(['r1', 'a.b']);
    expect(['nul', 'aux.txt', 'nul.'].map(folderName)).toEqual(['%6Eul', '%61ux.txt', '%6Eul%2E']);

    // A store an older statewright wrote, with folders named nul and aux.txt.
    const old = (id: string, was: string) => rename(folder(id), join(dir.path, 'runs', was));
    await old('nul', 'nul');
    await old('aux.txt', 'aux.txt');
    // As it was named: its first 100 characters, then the hash.
    await old(`nul.${'x'.repeat(200)}`, `nul.${'x'.repeat(96)}${folderName(`nul.${'x'.repeat(200)}`).slice(100)}`);
    store = open();
    for (const id of [...devices, ...plain]) expect([id, (await store.load(id))?.seq]).toEqual([id, 1]);
    expect((await store.list()).map((run) => run.runId).sort()).toEqual([...devices, ...plain].sort());
    expect(reports).toEqual([]);
  });

  it('keeps one folder per run: the snapshot with machine and version, the previous copy, one log line per commit', async () => {
    await written('r1', 3);
    expect((await readdir(folder('r1'))).sort()).toEqual(['events.jsonl', 'snapshot.json', 'snapshot.json.bak']);
    expect(JSON.parse(await readFile(file('r1', 'snapshot.json'), 'utf8'))).toEqual(row('r1', 3));
    expect(JSON.parse(await readFile(file('r1', 'snapshot.json.bak'), 'utf8'))).toMatchObject({
      runId: 'r1',
      machine: 'execution',
      version: 1,
      seq: 2,
    });
    const log = (await lines('r1')).map((l) => JSON.parse(l));
    expect(log.map((l) => [l.seq, l.event?.seq, l.run.machine, l.run.version])).toEqual([
      [0, undefined, 'execution', 1],
      [1, 1, 'execution', 1],
      [2, 2, 'execution', 1],
      [3, 3, 'execution', 1],
    ]);
    expect(reports).toEqual([]);
  });

  it('keeps snapshot.json when the log lost its last line after the fact: a repair never rolls back an acknowledged commit', async () => {
    await written('r1', 3);
    const log = await readFile(file('r1', 'events.jsonl'));
    await truncate(file('r1', 'events.jsonl'), log.length - 25);
    store = open();
    expect(await store.load('r1')).toEqual(row('r1', 3));
    expect((await store.history('r1')).map((e) => e.seq)).toEqual([1, 2]);
    expect(reports).toHaveLength(2);
    expect(reports[0]).toMatchObject({
      runId: 'r1',
      path: file('r1', 'events.jsonl'),
      reason: expect.stringMatching(/incomplete line \(no newline\)/),
    });
    expect(reports[0]!.action).toContain('events.jsonl.discarded');
    expect(reports[1]).toMatchObject({
      path: file('r1', 'events.jsonl'),
      reason: 'its last valid line is seq 2 but snapshot.json holds seq 3: the log lost seq 3',
      action: 'kept snapshot.json (seq 3), the newest intact state of the run; its history has a hole at seq 3',
    });
    // The cut bytes are kept, and the run takes its next commit after the state it had.
    expect((await readFile(file('r1', 'events.jsonl.discarded'))).length).toBe(
      log.length - 25 - (await readFile(file('r1', 'events.jsonl'))).length,
    );
    await store.commit([step('r1', 4)]);
    expect(await verifyLog('r1')).toEqual([0, 1, 2, 4]);
    await store.close();
    reports = [];
    store = open();
    expect(await store.load('r1')).toEqual(row('r1', 4));
    expect((await store.history('r1')).map((e) => e.seq)).toEqual([1, 2, 4]);
    expect(reports.map((r) => r.reason)).toEqual(['there is no valid line for seq 3']);
  });

  it('opened read-only, reports damage and how to repair it, and changes no file', async () => {
    await written('r1', 3);
    const log = await readFile(file('r1', 'events.jsonl'));
    await truncate(file('r1', 'events.jsonl'), log.length - 25);
    await writeFile(file('r1', 'snapshot.json'), '{"runId": "r1", garbage');
    const before = await folderBytes('r1');
    store = open({ readOnly: true });
    expect(await store.load('r1')).toEqual(row('r1', 2));
    expect((await store.history('r1')).map((e) => e.seq)).toEqual([1, 2]);
    expect(reports.length).toBeGreaterThan(0);
    for (const r of reports)
      expect(r.action).toMatch(
        new RegExp(
          `\\(in memory only: the store is read-only; \`statewright repair --store json:${dir.path}\` repairs the files\\)$`,
        ),
      );
    await store.close();
    store = undefined;
    expect(await folderBytes('r1')).toEqual(before);
    expect((await readdir(dir.path)).sort()).toEqual(['runs', 'statewright-store.json']);
  });

  it('keeps snapshot.json over a garbled last line the same way', async () => {
    await written('r1', 3);
    const kept = (await lines('r1')).slice(0, 3);
    await writeFile(file('r1', 'events.jsonl'), `${kept.join('\n')}\n{"seq":3,"run":{"runId":"r1"  GARBLE\n`);
    store = open();
    expect(await store.load('r1')).toEqual(row('r1', 3));
    expect(reports[0]).toMatchObject({
      path: file('r1', 'events.jsonl'),
      reason: expect.stringMatching(/^line 4: not JSON/),
    });
    expect(reports[1]?.reason).toContain('the log lost seq 3');
    expect(await store.history('r1')).toEqual([record('r1', 1), record('r1', 2)]);
  });

  it('keeps snapshot.json.bak when it is the newest intact copy: snapshot.json damaged, and the log lost two lines', async () => {
    await written('r1', 4);
    const all = await lines('r1');
    await writeFile(file('r1', 'events.jsonl'), `${all.slice(0, 3).join('\n')}\n`);
    await writeFile(file('r1', 'snapshot.json'), '{"runId": "r1", garbage');
    store = open();
    expect(await store.load('r1')).toEqual(row('r1', 3));
    expect(reports.map((r) => [basename(r.path), r.reason])).toEqual([
      ['events.jsonl', 'its last valid line is seq 2 but snapshot.json.bak holds seq 3: the log lost seq 3'],
      ['snapshot.json', expect.stringMatching(/^not JSON/)],
    ]);
    expect(JSON.parse(await readFile(file('r1', 'snapshot.json'), 'utf8'))).toEqual(row('r1', 3));
  });

  it('rebuilds a garbled snapshot.json from snapshot.json.bak and the log, losing nothing', async () => {
    await written('r1', 3);
    await writeFile(file('r1', 'snapshot.json'), '{"runId": "r1", "seq": 3, garbage');
    store = open();
    expect(await store.load('r1')).toEqual(row('r1', 3));
    expect(reports).toEqual([
      {
        runId: 'r1',
        path: file('r1', 'snapshot.json'),
        reason: expect.stringMatching(/^not JSON/),
        action:
          'used snapshot.json.bak (seq 2) and completed it from events.jsonl to seq 3; moved the damaged file to snapshot.json.corrupt',
      },
    ]);
    expect(await readFile(file('r1', 'snapshot.json.corrupt'), 'utf8')).toContain('garbage');
    expect(JSON.parse(await readFile(file('r1', 'snapshot.json'), 'utf8'))).toEqual(row('r1', 3));
  });

  it('falls back to snapshot.json.bak when snapshot.json is damaged and the log is gone', async () => {
    await written('r1', 3);
    await writeFile(file('r1', 'snapshot.json'), JSON.stringify({ ...row('r1', 3), machine: 42 }));
    await rm(file('r1', 'events.jsonl'));
    store = open();
    expect(await store.load('r1')).toEqual(row('r1', 2));
    expect(reports.map((r) => [basename(r.path), r.reason, r.action])).toEqual([
      [
        'events.jsonl',
        'the file is missing',
        'using snapshot.json.bak (seq 2); the audit trail up to that seq is lost',
      ],
      [
        'snapshot.json',
        expect.stringContaining("'machine'"),
        'used snapshot.json.bak (seq 2); moved the damaged file to snapshot.json.corrupt',
      ],
    ]);
    await store.commit([step('r1', 3)]);
    expect((await store.history('r1')).map((e) => e.seq)).toEqual([3]);
  });

  it('completes a commit cut short between its log line and its snapshot swap', async () => {
    await written('r1', 3);
    // What a kill after the append and before the rename leaves: the log one commit ahead.
    await rename(file('r1', 'snapshot.json.bak'), file('r1', 'snapshot.json'));
    store = open();
    expect(await store.load('r1')).toEqual(row('r1', 3));
    expect(reports).toEqual([
      expect.objectContaining({
        path: file('r1', 'snapshot.json'),
        reason: expect.stringContaining('is at seq 2 but events.jsonl holds seq 3'),
        action: 'completed the run from the log (seq 3)',
      }),
    ]);
  });

  it('skips a damaged line inside the log, reporting the hole in the audit trail', async () => {
    await written('r1', 3);
    const all = await lines('r1');
    await writeFile(file('r1', 'events.jsonl'), `${[all[0], all[1], 'x'.repeat(40), all[3]].join('\n')}\n`);
    store = open();
    expect(await store.load('r1')).toEqual(row('r1', 3));
    expect((await store.history('r1')).map((e) => e.seq)).toEqual([1, 3]);
    expect(reports.map((r) => r.reason)).toEqual([
      expect.stringMatching(/^line 3 \(byte \d+\) is damaged: not JSON/),
      'there is no valid line for seq 2',
    ]);
  });

  it('treats a folder whose first line never completed as no run', async () => {
    await mkdir(folder('half'), { recursive: true });
    await writeFile(file('half', 'events.jsonl'), '{"seq":0,"run":{"runId":"ha');
    store = open();
    expect(await store.load('half')).toBeUndefined();
    expect(await store.list()).toEqual([]);
    expect(reports).toHaveLength(1);
    await store.commit([create('half')]);
    expect(await store.load('half')).toEqual(row('half', 0));
  });

  it('refuses a run with no valid copy left, naming the file, and leaves it out of listings', async () => {
    await written('lost', 2);
    await written('fine', 1);
    for (const name of ['snapshot.json', 'snapshot.json.bak', 'events.jsonl'])
      await writeFile(file('lost', name), 'garbage\n');
    store = open();
    const error = await store.load('lost').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreCorruptionError);
    expect((error as Error).message).toContain(file('lost', 'snapshot.json'));
    expect((await store.list()).map((r) => r.runId)).toEqual(['fine']);
    expect(reports.at(-1)).toMatchObject({
      path: file('lost', 'snapshot.json'),
      action: expect.stringContaining('left the run out of listings'),
    });
  });

  it('undoes the whole batch when writing one run of it fails', async () => {
    store = open();
    await seed(store, 'a', 1);
    await seed(store, 'b', 1);
    // A directory where b's temp snapshot goes makes its write fail after a's went through.
    await mkdir(file('b', 'snapshot.json.tmp'));
    const error = await store.commit([step('a', 2), step('b', 2), create('c')]).then(
      () => undefined,
      (e: NodeJS.ErrnoException) => e,
    );
    expect(error?.code).toBe('EISDIR');
    expect((await store.load('a'))?.seq).toBe(1);
    expect(await store.load('c')).toBeUndefined();
    // a's snapshot was swapped and put back: it keeps a valid snapshot.json.bak.
    expect(JSON.parse(await readFile(file('a', 'snapshot.json.bak'), 'utf8'))).toMatchObject({ runId: 'a', seq: 1 });
    await rm(file('b', 'snapshot.json.tmp'), { recursive: true });
    await store.close();
    store = open();
    expect(await store.load('a')).toEqual(row('a', 1));
    expect((await store.history('a')).map((e) => e.seq)).toEqual([1]);
    expect(await store.load('c')).toBeUndefined();
    expect(reports).toEqual([]);
    await store.commit([step('a', 2), step('b', 2)]);
    expect((await store.load('b'))?.seq).toBe(2);
  });

  it('lets one store at a time write a folder, takes over a dead holder, and opens read-only alongside', async () => {
    store = open();
    await seed(store, 'r1', 1);
    expect(() => open()).toThrow(StoreLockedError);
    const reader = open({ readOnly: true });
    expect(await reader.load('r1')).toEqual(row('r1', 1));
    await expect(reader.commit([step('r1', 2)])).rejects.toBeInstanceOf(StoreReadOnlyError);
    await reader.close();
    await store.close();
    // A lock left by a killed process is taken over.
    await writeFile(
      join(dir.path, 'LOCK'),
      JSON.stringify({ pid: spawnSync(process.execPath, ['-e', '']).pid, host: hostname(), since: 'then' }),
    );
    store = open();
    expect(await store.load('r1')).toEqual(row('r1', 1));
  });

  it('refuses a folder written by a newer format', async () => {
    await writeFile(
      join(dir.path, 'statewright-store.json'),
      JSON.stringify({ format: 'statewright-json-file', version: 9 }),
    );
    expect(() => open()).toThrow(StoreFormatError);
    expect(() => open()).toThrow(/format version 9/);
  });

  /** Every file of a run's folder with its bytes. */
  async function folderBytes(runId: string): Promise<Record<string, string>> {
    const names = (await readdir(folder(runId))).sort();
    return Object.fromEntries(
      await Promise.all(
        names.map(async (name) => [name, (await readFile(file(runId, name))).toString('base64')] as const),
      ),
    );
  }

  /** The seqs of the log's lines, read straight from the file. */
  async function verifyLog(runId: string): Promise<number[]> {
    return (await lines(runId)).map((l) => JSON.parse(l).seq);
  }
});

describe('json-file store: one folder per run id', () => {
  /** The id a short folder name spells: its percent-encoded UTF-8 bytes decoded (`folderName` in reverse). */
  const decode = (name: string) =>
    name === '%'
      ? ''
      : Buffer.from(
          name.replace(/%([0-9A-F]{2})|./gs, (c, hex?: string) => (hex ? String.fromCharCode(parseInt(hex, 16)) : c)),
          'latin1',
        ).toString('utf8');

  /** Well-formed ids made to collide if anything can: case, dots, percent signs, normal forms, lengths around the hash. */
  function trickyIds(): string[] {
    const parts = [
      'a',
      'A',
      'z',
      'Z',
      '0',
      '.',
      '..',
      '%',
      '%25',
      '%2e',
      '%2E',
      '~',
      '-',
      '_',
      '/',
      '\\',
      ' ',
      'é',
      'e\u0301',
      'ß',
      'SS',
      'İ',
      'ı',
      'K',
      '\u212a',
      '\ufffd',
      '😀',
      '\u{10ffff}',
      'ÿ',
      '\u00a0',
    ];
    const ids = new Set<string>(parts);
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let i = 0; i < 5000; i++)
      ids.add(Array.from({ length: 1 + random(6) }, () => parts[random(parts.length)]).join(''));
    for (const base of ['a', 'A', '😀', 'é']) for (let n = 40; n <= 200; n++) ids.add(base.repeat(n));
    return [...ids];
  }

  it('names every well-formed id with a folder of its own, also on a file system that ignores case, and never "." or ".."', () => {
    const ids = trickyIds();
    const names = ids.map(folderName);
    expect(new Set(names).size).toBe(ids.length);
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(ids.length);
    for (const [i, name] of names.entries()) {
      expect(name.length, JSON.stringify(ids[i])).toBeLessThanOrEqual(180);
      // A short name decodes back to its id, so no two ids share one; a long one is cut, and carries a hash of its id.
      if (!name.includes('~')) {
        expect(name, JSON.stringify(ids[i])).toMatch(/^(?:[a-z0-9_-]|%[0-9A-F]{2}|(?<!^)\.)+$|^%$/);
        expect(decode(name)).toBe(ids[i]);
      } else expect(name, JSON.stringify(ids[i])).toMatch(/^[a-z0-9_.%A-F-]{100}~[0-9a-f]{32}$/);
    }
    expect(folderName('.')).toBe('%2E');
    // Windows drops a trailing dot: it is encoded too.
    expect(folderName('..')).toBe('%2E%2E');
  });

  it('refuses a new run whose folder holds another run (an id written before ids were checked), keeping the stored one whole', async () => {
    const dir = await tempDir('json-clash');
    let store = jsonFileStore(dir.path);
    try {
      // A lone surrogate is written as U+FFFD's bytes, so both ids name one folder.
      expect(folderName('x\ud800')).toBe(folderName('x\ufffd'));
      await seed(store, 'x\ud800', 2);
      const clash = await store.commit([create('x\ufffd')]).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(clash).toBeInstanceOf(RunIdClashError);
      expect(clash).toMatchObject({
        runId: 'x\ufffd',
        holder: 'x\ud800',
        message: expect.stringMatching(
          /^Run "x\ufffd" cannot be stored: .* holds run "x\\ud800", .*Nothing was written: give the new run another id\.$/,
        ),
      });
      for (const reopen of [false, true]) {
        if (reopen) {
          await store.close();
          store = jsonFileStore(dir.path);
        }
        expect(await store.load('x\ud800')).toEqual(row('x\ud800', 2));
        expect((await store.history('x\ud800')).map((e) => e.seq)).toEqual([1, 2]);
        expect(await store.load('x\ufffd')).toBeUndefined();
        expect((await store.list()).map((r) => r.runId)).toEqual(['x\ud800']);
      }
    } finally {
      await store.close();
      await dir.remove();
    }
  });
});
