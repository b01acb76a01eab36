import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { makePrivateDirSync, PRIVATE_FILE_MODE, tightenPrivate } from '../../os/private-files.js';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { acquireLock } from './file-lock.js';
import {
  fsyncDir,
  planWrite,
  readLog,
  readRun,
  seqRange,
  undoWrite,
  writeRun,
  type RunState,
  type RunWrite,
} from './run-folder.js';
import { checkLine, currentFolderName, folderName, parseLog } from './run-log.js';
import {
  countOf,
  findConflicts,
  matches,
  pageOf,
  type Commit,
  type EventRecord,
  type RunFilter,
  type Store,
  type StoredRun,
} from '../store.js';
import {
  RunIdClashError,
  StoreClosedError,
  StoreCorruptionError,
  StoreFormatError,
  StoreFullError,
  StoreOpenError,
  StoreReadOnlyError,
  isDiskFull,
  type CorruptionReport,
} from '../store-errors.js';

export interface JsonFileStoreOptions {
  /**
   * Told of every damaged or half-written file the store finds, with the path, the reason and the
   * copy it used instead. Without it, reports go to stderr. All of them are also kept in `warnings`.
   */
  onCorruption?: (report: CorruptionReport) => void;
  /**
   * Open without taking the lock and without writing: for reading a store that a running process
   * owns, and for the read commands (`statewright status`, `history`, `verify`), which never change
   * a store. Damage is reported and worked around in memory only; opening the store for writing
   * (`statewright repair`) repairs the files.
   */
  readOnly?: boolean;
}

export interface JsonFileStore extends Store {
  readonly kind: 'json-file';
  readonly dir: string;
  /** Every corruption report since the store was opened. */
  readonly warnings: readonly CorruptionReport[];
}

const FORMAT = 'statewright-json-file';
const FORMAT_VERSION = 1;
const MARKER = 'statewright-store.json';
const LOCK = 'LOCK';
/** Runs read at once by `list`: enough to overlap the reads, few enough to stay clear of the open-files limit. */
const LIST_CONCURRENCY = 32;

/**
 * A store in plain files, one folder per run under `<dir>/runs/`: snapshot.json, written
 * atomically with a .bak of the previous copy, and events.jsonl, an append-only log with one line
 * per commit (see run-folder.ts for the layout and the recovery rule). One process writes a store
 * at a time (a LOCK file says which); the runs it has read are kept in memory.
 *
 * It has no leases and no timer index (`Store.leases`): the LOCK already makes its process the only
 * host, so a runtime on it keeps every active run in memory (no hibernation) and arms each run's
 * deadlines itself. `Commit.wakeAt` and `Commit.lease` are ignored. For several hosts, or for more
 * waiting runs than fit in memory, use SQLite or Postgres.
 */
export function jsonFileStore(dir: string, options: JsonFileStoreOptions = {}): JsonFileStore {
  const root = resolve(dir);
  const runsDir = join(root, 'runs');
  const readOnly = options.readOnly ?? false;
  if (!readOnly) {
    try {
      makePrivateDirSync(runsDir);
      tightenPrivate(`the json-file store ${root}`, [root], { deep: true });
    } catch (error) {
      throw new StoreOpenError(
        'json-file',
        root,
        (error as Error).message,
        'Pick a folder this process can create and write (--store json:<dir>).',
      );
    }
  }
  let release = () => {};
  try {
    checkFormat(root, readOnly);
    if (!readOnly) {
      release = acquireLock(join(root, LOCK));
      renameDeviceFolders(runsDir);
    }
  } catch (error) {
    throw isDiskFull(error)
      ? new StoreFullError(root, {
          cause: error,
          refused: 'the store could not be opened for writing (opened read-only, it can still be read)',
        })
      : error;
  }

  const warnings: CorruptionReport[] = [];
  const report = (found: CorruptionReport) => {
    warnings.push(found);
    if (options.onCorruption) options.onCorruption(found);
    else process.stderr.write(`statewright json-file store: ${found.path}: ${found.reason}; ${found.action}\n`);
  };
  const context = {
    report,
    repair: !readOnly,
    repairHint: `\`statewright repair --store json:${root}\` repairs the files`,
  };

  /** Each run's folder is read once; later calls share the answer (and its error, if it is beyond repair). */
  const states = new Map<string, Promise<RunState | undefined>>();
  const refused = new Set<string>();
  let writing: Promise<unknown> = Promise.resolve();
  let closed = false;

  const folderOf = (name: string) => join(runsDir, name);
  const stateOf = (name: string): Promise<RunState | undefined> => {
    let state = states.get(name);
    if (!state) {
      const reading: Promise<RunState | undefined> = readRun(folderOf(name), name, context).catch((error: unknown) => {
        if (!isDiskFull(error)) throw error;
        // Repairing the run's files needed space: say so, and read it again next time (space may have been freed).
        if (states.get(name) === reading) states.delete(name);
        throw new StoreFullError(folderOf(name), {
          cause: error,
          refused:
            "the run's damaged files could not be repaired, so it cannot be read for writing (open the store read-only to read it as it is)",
        });
      });
      state = reading;
      state.catch(() => {});
      states.set(name, state);
    }
    return state;
  };
  const assertOpen = () => {
    if (closed) throw new StoreClosedError('json-file', root);
  };
  const runState = async (runId: string) => {
    assertOpen();
    const state = await stateOf(folderName(runId));
    return state?.row.runId === runId ? state : undefined;
  };
  /** The run's state for a commit: a folder that holds another run is never written over. */
  const writableState = async (runId: string) => {
    assertOpen();
    const name = folderName(runId);
    const state = await stateOf(name);
    if (state && state.row.runId !== runId) throw new RunIdClashError(runId, state.row.runId, folderOf(name));
    return state;
  };

  async function commitBatch(commits: readonly Commit[]): Promise<void> {
    const byRun = new Map<string, Commit[]>();
    for (const commit of commits) byRun.set(commit.run.runId, [...(byRun.get(commit.run.runId) ?? []), commit]);
    const before = new Map<string, RunState | undefined>();
    for (const runId of byRun.keys()) before.set(runId, await writableState(runId));
    const conflict = findConflicts(commits, (runId) => before.get(runId)?.row.seq);
    if (conflict) throw conflict;

    const writes = new Map<string, RunWrite>(
      [...byRun].map(([runId, list]) => [runId, planWrite(folderOf(folderName(runId)), before.get(runId), list)]),
    );
    const results = await Promise.allSettled([...writes.values()].map(writeRun));
    let failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')?.reason as Error | undefined;
    // A new run's folder must be durable in runs/ before the batch counts as committed.
    if (!failure && [...before.values()].includes(undefined))
      failure = await fsyncDir(runsDir).then(
        () => undefined,
        (error: Error) => error,
      );
    if (failure) {
      // Undo the whole batch: no run keeps a commit the caller is told failed.
      const undone = failure;
      for (const [runId, write] of writes) {
        try {
          await undoWrite(write);
        } catch (undoError) {
          // The disk now decides: read the run again from its files (the log is the truth) next time.
          states.delete(folderName(runId));
          failure = new Error(
            `${failure.message}; undoing the batch for run '${runId}' failed too (${(undoError as Error).message}), so the run will be read again from ${write.dir}`,
            { cause: failure },
          );
        }
      }
      // A full disk is said so, once the batch is fully undone (the run is as it was: retrying is safe).
      throw failure === undone && isDiskFull(failure) ? new StoreFullError(root, { cause: failure }) : failure;
    }
    [...writes.keys()].forEach((runId, i) =>
      states.set(folderName(runId), Promise.resolve((results[i] as PromiseFulfilledResult<RunState>).value)),
    );
  }

  /** Every run's row as read (the caller copies what it hands out); a run beyond repair is reported once and left out. */
  async function listed(): Promise<StoredRun[]> {
    assertOpen();
    const entries = await readdir(runsDir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    const names = entries.filter((e) => e.isDirectory()).map((e) => e.name);
    const rows: StoredRun[] = [];
    for (let i = 0; i < names.length; i += LIST_CONCURRENCY) {
      const chunk = names.slice(i, i + LIST_CONCURRENCY);
      const found = await Promise.all(
        chunk.map((name) =>
          stateOf(name).catch((error: Error) => {
            if (!(error instanceof StoreCorruptionError)) throw error;
            if (!refused.has(name)) {
              refused.add(name);
              report({
                path: error.path,
                reason: error.reason,
                action: 'left the run out of listings; loading it fails with this error',
              });
            }
            return undefined;
          }),
        ),
      );
      for (const state of found) if (state) rows.push(state.row);
    }
    return rows;
  }

  return {
    kind: 'json-file',
    dir: root,
    warnings,
    commit(commits) {
      if (readOnly) return Promise.reject(new StoreReadOnlyError(root));
      try {
        assertOpen();
      } catch (error) {
        return Promise.reject(error);
      }
      // One batch at a time: the conflict check and the writes must see the same disk.
      const done = writing.then(() => commitBatch(commits));
      writing = done.catch(() => {});
      return done;
    },
    async load(runId) {
      const state = await runState(runId);
      return state && structuredClone(state.row);
    },
    async list(filter: RunFilter = {}) {
      const rows = (await listed()).filter((row) => matches(row, filter)).map((row) => structuredClone(row));
      return rows.sort((a, b) => a.createdAt - b.createdAt || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
    },
    async listPage(query) {
      return pageOf(await listed(), query, (row) => structuredClone(row));
    },
    async countByState(filter: RunFilter = {}) {
      return countOf(await listed(), filter);
    },
    async history(runId) {
      const state = await runState(runId);
      if (!state) return [];
      const folder = folderName(runId);
      const log = parseLog(await readLog(folderOf(folder), 0, state.logSize), folder);
      if (!state.damageReported) {
        state.damageReported = true;
        for (const bad of log.damaged)
          report({
            runId,
            path: join(folderOf(folder), 'events.jsonl'),
            reason: `line ${bad.lineNumber} (byte ${bad.offset}) is damaged: ${bad.reason}`,
            action: 'skipped it; the audit trail has no record of that commit',
          });
        for (const gap of log.gaps)
          report({
            runId,
            path: join(folderOf(folder), 'events.jsonl'),
            reason: `there is no valid line for ${seqRange(gap.from, gap.to)}`,
            action: 'the history has a hole there; the run continues from the lines that are there',
          });
      }
      return log.lines.flatMap((line): EventRecord[] => (line.event ? [line.event] : []));
    },
    async findIdempotent(runId, key) {
      const state = await runState(runId);
      if (!state) return undefined;
      const folder = folderName(runId);
      const keys = (state.keys ??= { covered: 0, lines: new Map() });
      // Catch up with what was committed since the last lookup; committed bytes never change.
      const logSize = state.logSize;
      if (keys.covered < logSize) {
        const covered = keys.covered;
        const log = parseLog(await readLog(folderOf(folder), covered, logSize - covered), folder);
        for (const line of log.lines) {
          if (line.event?.idempotencyKey !== undefined)
            keys.lines.set(line.event.idempotencyKey, { offset: covered + line.offset, length: line.length });
        }
        keys.covered = Math.max(keys.covered, logSize);
      }
      const where = keys.lines.get(key);
      if (!where) return undefined;
      const line = checkLine(
        JSON.parse((await readLog(folderOf(folder), where.offset, where.length)).toString('utf8')),
        folder,
      );
      if (typeof line === 'string')
        throw new StoreCorruptionError(
          join(folderOf(folder), 'events.jsonl'),
          `the line at byte ${where.offset} changed after it was committed: ${line}`,
        );
      return { seq: line.seq, result: line.result };
    },
    async close() {
      if (closed) return;
      closed = true;
      // Reads may be repairing a run's files: let them finish before another process may take the lock.
      await Promise.allSettled([writing, ...states.values()]);
      release();
    },
  };
}

/**
 * Gives the folders an older statewright named after a Windows device (`nul`, `aux.txt`) the names
 * folderName gives them now, so their runs are found (and the store can be copied to Windows).
 */
function renameDeviceFolders(runsDir: string): void {
  for (const name of readdirSync(runsDir)) {
    const current = currentFolderName(name);
    if (current !== name && !existsSync(join(runsDir, current)))
      renameSync(join(runsDir, name), join(runsDir, current));
  }
}

/** Writes the format marker of a new store, or refuses a store written in a format this code does not know. */
function checkFormat(root: string, readOnly: boolean): void {
  const path = join(root, MARKER);
  let text: string | undefined;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text === undefined) {
    if (readOnly) return;
    writeFileSync(`${path}.tmp`, `${JSON.stringify({ format: FORMAT, version: FORMAT_VERSION })}\n`, {
      mode: PRIVATE_FILE_MODE,
    });
    renameSync(`${path}.tmp`, path);
    return;
  }
  let marker: { format?: unknown; version?: unknown };
  try {
    marker = JSON.parse(text);
  } catch (error) {
    throw new StoreCorruptionError(
      path,
      `not JSON (${(error as Error).message})`,
      `Write {"format":"${FORMAT}","version":${FORMAT_VERSION}} into it if this folder is a json-file store.`,
    );
  }
  if (marker.format !== FORMAT)
    throw new StoreCorruptionError(
      path,
      `its format is ${JSON.stringify(marker.format)}, not "${FORMAT}"`,
      'Open this folder with the store that wrote it.',
    );
  if (marker.version !== FORMAT_VERSION) throw new StoreFormatError(path, marker.version, FORMAT_VERSION);
}
