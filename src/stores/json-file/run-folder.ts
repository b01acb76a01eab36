import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../../os/private-files.js';
import { join } from 'node:path';
import { plainRow, type Commit, type StoredRun } from '../store.js';
import { StoreCorruptionError, type CorruptionReport } from '../store-errors.js';
import {
  BACKUP,
  DAMAGED,
  DISCARDED,
  LOG,
  SNAPSHOT,
  TEMP,
  checkLine,
  checkRow,
  encodeLine,
  parseLog,
  type LogLine,
} from './run-log.js';

/** What the store keeps in memory about one run once it has read its folder. */
export interface RunState {
  row: StoredRun;
  /** Bytes of events.jsonl that hold committed lines; anything beyond is a commit in progress. */
  logSize: number;
  /** Idempotency keys of the log, read lazily up to `covered` bytes: key -> where its line is. */
  keys?: { covered: number; lines: Map<string, { offset: number; length: number }> };
  /** Damage inside the log was reported already (the fast path of `readRun` does not look for it). */
  damageReported?: boolean;
}

export interface FolderContext {
  report(report: CorruptionReport): void;
  /** False for a read-only store: damage is reported but the files are left as they are. */
  readonly repair: boolean;
  /** For a read-only store: how to repair what it reports (which command, or which store to open). */
  readonly repairHint?: string;
}

type RowFile = { kind: 'ok'; row: StoredRun } | { kind: 'missing' } | { kind: 'corrupt'; reason: string };

async function readRowFile(path: string, folder: string): Promise<RowFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'corrupt', reason: `not JSON (${(error as Error).message})` };
  }
  const checked = checkRow(value, folder);
  return 'row' in checked ? { kind: 'ok', row: checked.row } : { kind: 'corrupt', reason: checked.reason };
}

async function readOptional(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The last line of the log if the file ends in a newline, read from the end: the fast path must not read whole logs. */
async function readLastLine(path: string): Promise<{ size: number; line: string | undefined }> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { size: 0, line: undefined };
    throw error;
  }
  try {
    const { size } = await handle.stat();
    for (let chunk = 16_384; ; chunk *= 4) {
      const start = Math.max(0, size - chunk);
      const buffer = Buffer.alloc(size - start);
      await handle.read(buffer, 0, buffer.length, start);
      if (buffer.length === 0 || buffer[buffer.length - 1] !== 0x0a) return { size, line: undefined };
      const previous = buffer.lastIndexOf(0x0a, buffer.length - 2);
      if (previous !== -1 || start === 0)
        return { size, line: buffer.toString('utf8', previous + 1, buffer.length - 1) };
    }
  } finally {
    await handle.close();
  }
}

/** Reads `length` bytes of the log from `offset`. */
export async function readLog(dir: string, offset: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  if (length === 0) return buffer;
  const handle = await open(join(dir, LOG), 'r');
  try {
    const { bytesRead } = await handle.read(buffer, 0, length, offset);
    if (bytesRead !== length)
      throw new StoreCorruptionError(
        join(dir, LOG),
        `it is shorter than the ${offset + length} bytes this store committed to it; another program changed it`,
        'Reopen the store to recover from the last good copy.',
      );
  } finally {
    await handle.close();
  }
  return buffer;
}

export async function fsyncDir(dir: string): Promise<void> {
  // Windows cannot open a directory; there rename is durable once it returns.
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeDurably(path: string, text: string | Buffer, flag: 'w' | 'a'): Promise<void> {
  const handle = await open(path, flag, PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function truncateDurably(path: string, size: number): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.truncate(size);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** How far a commit to one run got, so a failed batch can be undone. */
interface Progress {
  appended: boolean;
  /** 'moved': snapshot.json became the .bak; 'replaced': the new snapshot.json is in place. */
  snapshot: 'untouched' | 'moved' | 'replaced';
}

/** The atomic snapshot swap: the temp file (written and fsync'd by the caller), previous copy to .bak, rename. The folder's fsync is the caller's. */
async function swapSnapshot(dir: string, progress?: Progress): Promise<void> {
  try {
    await rename(join(dir, SNAPSHOT), join(dir, BACKUP));
    if (progress) progress.snapshot = 'moved';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await rename(join(dir, TEMP), join(dir, SNAPSHOT));
  if (progress) progress.snapshot = 'replaced';
}

async function writeSnapshot(dir: string, json: string): Promise<void> {
  await writeDurably(join(dir, TEMP), json, 'w');
  await swapSnapshot(dir);
}

/**
 * Reads a run's folder and brings it to a consistent state. The rule, which holds because a commit
 * appends and fsyncs its log line before it swaps the snapshot, and is acknowledged only after both:
 *
 * 1. events.jsonl is the record of truth; a commit happened if and only if its line is in the log
 *    complete and valid. Each line carries the run's new row, so the run is the row of the last
 *    valid line.
 * 2. Bytes after the last valid line are moved to events.jsonl.discarded and cut from the log.
 *    Left by a crash, they belong to no acknowledged commit (a commit is acknowledged only once
 *    its line is whole and fsync'd); damage after the fact loses that commit, and says so.
 * 3. snapshot.json is a checkpoint of that row. At the same seq it is used as it is (the fast path
 *    reads only the log's last line). Behind the log (a crash between appending and swapping), the
 *    run is completed from the log: that commit was not acknowledged, and keeping it is allowed.
 *    Ahead of the log (the log lost lines after they were acknowledged: damage, or a program that
 *    cut it), the snapshot is the newest intact state and is kept: a repair never rolls a run back
 *    past an acknowledged state. The lost seqs are reported as a hole in the run's history, which
 *    `verify` names too. The same holds for snapshot.json.bak when snapshot.json is damaged.
 * 4. A damaged snapshot.json is moved to snapshot.json.corrupt; snapshot.json.bak, the previous
 *    copy, is used, and completed from the log. If the log has no valid line at all, the newest
 *    valid copy of snapshot.json or snapshot.json.bak is the run (its audit trail is lost).
 * 5. A folder with no valid line and no snapshot holds no run (a creation cut short before its
 *    first line was complete); with only damaged snapshots it cannot be recovered and is refused.
 *
 * Everything found is reported; nothing is discarded without a report.
 */
export async function readRun(dir: string, folder: string, context: FolderContext): Promise<RunState | undefined> {
  const snapshot = await readRowFile(join(dir, SNAPSHOT), folder);
  if (snapshot.kind === 'ok') {
    const { size, line } = await readLastLine(join(dir, LOG));
    if (line !== undefined) {
      let last: LogLine | string;
      try {
        last = checkLine(JSON.parse(line), folder);
      } catch {
        last = 'not JSON';
      }
      if (typeof last !== 'string' && last.seq === snapshot.row.seq) return { row: snapshot.row, logSize: size };
    }
  }
  return reconcile(dir, folder, snapshot, context);
}

/** `seq 4` or `seq 4 to 9`, for reports of holes in a run's history. */
export const seqRange = (from: number, to: number) => (from === to ? `seq ${from}` : `seq ${from} to ${to}`);

async function reconcile(
  dir: string,
  folder: string,
  snapshot: RowFile,
  context: FolderContext,
): Promise<RunState | undefined> {
  const logPath = join(dir, LOG);
  const snapshotPath = join(dir, SNAPSHOT);
  const bytes = await readOptional(logPath);
  const log = parseLog(bytes ?? Buffer.alloc(0), folder);
  const last = log.lines.at(-1);
  let runId = last?.run.runId ?? (snapshot.kind === 'ok' ? snapshot.row.runId : undefined);
  const report = (path: string, reason: string, action: string) =>
    context.report({
      ...(runId !== undefined && { runId }),
      path,
      reason,
      action: context.repair
        ? action
        : `${action} (in memory only: the store is read-only${context.repairHint ? `; ${context.repairHint}` : ''})`,
    });

  for (const bad of log.damaged)
    report(
      logPath,
      `line ${bad.lineNumber} (byte ${bad.offset}) is damaged: ${bad.reason}`,
      'skipped it; the lines after it are used, and the audit trail has no record of that commit',
    );
  for (const gap of log.gaps)
    report(
      logPath,
      `there is no valid line for ${seqRange(gap.from, gap.to)}`,
      'the audit trail lacks those events; the run continues from the lines that are there',
    );
  if (log.lines[0] && log.lines[0].seq > 0)
    report(
      logPath,
      `the log starts at seq ${log.lines[0].seq}, not at the run's creation`,
      'the audit trail before it is lost',
    );
  if (log.tail !== undefined && bytes) {
    report(
      logPath,
      log.tail,
      `set the ${bytes.length - log.goodEnd} bytes after ${last ? `seq ${last.seq}` : 'the start'} aside in ${DISCARDED} and cut them from the log; the run continues from ${last ? `seq ${last.seq}` : 'nothing'}`,
    );
    if (context.repair) {
      await writeDurably(join(dir, DISCARDED), bytes.subarray(log.goodEnd), 'a');
      await truncateDurably(logPath, log.goodEnd);
    }
  }

  const backup = snapshot.kind === 'ok' ? undefined : await readRowFile(join(dir, BACKUP), folder);
  const checkpoint =
    snapshot.kind === 'ok'
      ? { row: snapshot.row, file: SNAPSHOT }
      : backup?.kind === 'ok'
        ? { row: backup.row, file: BACKUP }
        : undefined;
  runId ??= checkpoint?.row.runId;
  let row: StoredRun;
  if (last && checkpoint && checkpoint.row.seq > last.seq) {
    // The log lost its newest lines after they were acknowledged (a snapshot is swapped in only once
    // its line is durable): the checkpoint is the newest intact state, and going back to the log
    // would undo acknowledged commits. Keep it; the hole in the audit trail is reported.
    row = checkpoint.row;
    const hole = seqRange(last.seq + 1, row.seq);
    report(
      logPath,
      `its last valid line is seq ${last.seq} but ${checkpoint.file} holds seq ${row.seq}: the log lost ${hole}`,
      `kept ${checkpoint.file} (seq ${row.seq}), the newest intact state of the run; its history has a hole at ${hole}`,
    );
    if (snapshot.kind === 'corrupt')
      report(snapshotPath, snapshot.reason, `used ${BACKUP} (seq ${row.seq}); moved the damaged file to ${DAMAGED}`);
  } else if (last) {
    const inputs = [checkpoint?.row, log.lines[0]?.seq === 0 ? log.lines[0].run : undefined].filter(
      (r) => r !== undefined && 'input' in r,
    );
    if (inputs.length === 0)
      report(
        logPath,
        'no copy of the run holds its input (neither snapshot nor the creation line)',
        'the input reads as null',
      );
    row = { ...last.run, input: inputs[0]?.input ?? null };
    const using =
      checkpoint?.file === BACKUP
        ? `used ${BACKUP} (seq ${checkpoint.row.seq})${checkpoint.row.seq === row.seq ? '' : ` and completed it from ${LOG} to seq ${row.seq}`}`
        : `rebuilt the run from ${LOG} (seq ${row.seq})`;
    if (snapshot.kind === 'corrupt')
      report(snapshotPath, snapshot.reason, `${using}; moved the damaged file to ${DAMAGED}`);
    else if (snapshot.kind === 'missing')
      report(
        snapshotPath,
        'the file is missing (a crash during the snapshot swap, or during the creation of the run)',
        using,
      );
    else if (snapshot.row.seq < row.seq)
      report(
        snapshotPath,
        `it is at seq ${snapshot.row.seq} but ${LOG} holds seq ${row.seq}: a commit was cut short between writing its log line and swapping the snapshot`,
        `completed the run from the log (seq ${row.seq})`,
      );
  } else if (checkpoint) {
    row = checkpoint.row;
    report(
      logPath,
      bytes === undefined ? 'the file is missing' : 'it holds no valid line',
      `using ${checkpoint.file} (seq ${row.seq}); the audit trail up to that seq is lost`,
    );
    if (snapshot.kind === 'corrupt')
      report(snapshotPath, snapshot.reason, `used ${BACKUP} (seq ${row.seq}); moved the damaged file to ${DAMAGED}`);
  } else {
    const damaged = [
      snapshot.kind === 'corrupt' && `${SNAPSHOT}: ${snapshot.reason}`,
      backup?.kind === 'corrupt' && `${BACKUP}: ${backup.reason}`,
    ].filter(Boolean);
    if (damaged.length)
      throw new StoreCorruptionError(
        snapshotPath,
        `${damaged.join('; ')}; and ${LOG} holds no valid line to rebuild the run from`,
      );
    return undefined;
  }

  if (context.repair && !(snapshot.kind === 'ok' && snapshot.row.seq === row.seq)) {
    if (snapshot.kind === 'corrupt') await rename(snapshotPath, join(dir, DAMAGED));
    await writeSnapshot(dir, JSON.stringify(row));
    await fsyncDir(dir);
  }
  return { row, logSize: log.goodEnd, damageReported: true };
}

/** One run's part of a batch: what it was before, and how far its writes got. */
export interface RunWrite {
  readonly dir: string;
  readonly previous: RunState | undefined;
  readonly commits: readonly Commit[];
  prevSize: number;
  readonly progress: Progress;
}

export function planWrite(dir: string, previous: RunState | undefined, commits: readonly Commit[]): RunWrite {
  return {
    dir,
    previous,
    commits,
    prevSize: previous?.logSize ?? 0,
    progress: { appended: false, snapshot: 'untouched' },
  };
}

/**
 * Appends the run's lines and writes the new snapshot to its temp file, both fsync'd (side by side:
 * neither is visible as the run's state yet), then swaps the snapshot in and fsyncs the folder. The
 * swap comes after the log line is durable, so a snapshot is never ahead of its log after a crash.
 */
export async function writeRun(write: RunWrite): Promise<RunState> {
  const { dir, previous, commits } = write;
  const logPath = join(dir, LOG);
  if (!previous) {
    await makePrivateDir(dir);
    // A creation cut short may have left an empty log behind.
    write.prevSize = await stat(logPath).then(
      (s) => s.size,
      () => 0,
    );
  }
  const text = commits.map(encodeLine).join('');
  const newest = commits.at(-1)!.run;
  // The input never changes after creation (as in every store); the row is read back from its JSON so memory holds what the disk holds.
  const json = JSON.stringify({ ...plainRow(newest), input: previous ? previous.row.input : (newest.input ?? null) });
  write.progress.appended = true;
  const written = await Promise.allSettled([
    writeDurably(logPath, text, 'a'),
    writeDurably(join(dir, TEMP), json, 'w'),
  ]);
  for (const result of written) if (result.status === 'rejected') throw result.reason;
  await swapSnapshot(dir, write.progress);
  await fsyncDir(dir);
  return {
    row: JSON.parse(json),
    logSize: write.prevSize + Buffer.byteLength(text),
    ...(previous?.keys && { keys: previous.keys }),
  };
}

/**
 * Undoes what `writeRun` got to: puts the previous snapshot back, then cuts the log back. The
 * snapshot goes first: were the log cut and the snapshot then failed to go back, the refused commit
 * would read as the run's newest state. The previous snapshot is copied back from snapshot.json.bak
 * by a hard link, so the run keeps its .bak.
 */
export async function undoWrite(write: RunWrite): Promise<void> {
  const { dir, previous, progress } = write;
  if (progress.snapshot !== 'untouched') {
    if (previous) {
      const temporary = join(dir, `${BACKUP}.${process.pid}.undo`);
      await unlink(temporary).catch(() => {});
      await link(join(dir, BACKUP), temporary);
      await rename(temporary, join(dir, SNAPSHOT));
    } else await unlink(join(dir, SNAPSHOT)).catch(() => {});
  }
  if (progress.appended)
    await truncateDurably(join(dir, LOG), write.prevSize).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  await unlink(join(dir, TEMP)).catch(() => {});
  await fsyncDir(dir).catch(() => {});
}
