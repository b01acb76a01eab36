import { randomBytes } from 'node:crypto';
import { link, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteOptions {
  /** File mode of a newly written file; default 0o600 (a manifest holds prompts and commands). */
  mode?: number;
  /** Keep the copy being replaced at this path, so a reader can fall back to the last good one. */
  backup?: string;
}

/**
 * Replaces `path` with `data` so that a crash at any instant leaves either the old or the new
 * content, never a mix: write a temporary file in the same directory, fsync it, (optionally hard
 * link the old file to `backup`), rename it over `path`, fsync the directory so the rename is durable.
 */
export async function writeFileAtomic(path: string, data: string, options: AtomicWriteOptions = {}): Promise<void> {
  const dir = dirname(path);
  const temporary = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const file = await open(temporary, 'wx', options.mode ?? 0o600);
  try {
    try {
      await file.writeFile(data, 'utf8');
      await file.sync();
    } finally {
      await file.close();
    }
    if (options.backup) await keepBackup(path, options.backup);
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
  await syncDirectory(dir);
}

/** Hard-links the current file to `backup` (atomically, through a temporary name); nothing to keep if it does not exist. */
async function keepBackup(path: string, backup: string): Promise<void> {
  const temporary = `${backup}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await link(path, temporary);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await rename(temporary, backup);
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
