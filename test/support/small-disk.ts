import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/** A small file system of its own for one test, to run a store out of space. */
export interface SmallDisk {
  /** Where it is mounted. */
  readonly path: string;
  /** Fills what is left of it with one file, up to the last byte it takes. */
  fill(): void;
  /** Removes that file again. */
  free(): void;
}

/**
 * Mounts a tmpfs of `size` (as mount's `size=` takes it, e.g. '4m') for the current test and
 * unmounts it when the test finishes, however it finishes. Needs root: where it cannot mount, it
 * returns why, for the test to skip with.
 */
export function mountSmallDisk(size: string): SmallDisk | string {
  if (process.platform !== 'linux') return `a small tmpfs needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'mounting a small tmpfs needs root';
  const path = mkdtempSync(join(tmpdir(), 'statewright-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', path], { stdio: 'pipe' });
  } catch (error) {
    rmSync(path, { recursive: true, force: true });
    return `mount -t tmpfs failed: ${String((error as { stderr?: unknown }).stderr ?? error).trim()}`;
  }
  onTestFinished(() => {
    execFileSync('umount', [path], { stdio: 'pipe' });
    rmSync(path, { recursive: true, force: true });
  });
  const filler = join(path, 'filler');
  return {
    path,
    fill() {
      const fd = openSync(filler, 'a');
      try {
        // Big blocks first, then single bytes, so not even a byte is left.
        for (const block of [Buffer.alloc(1 << 16), Buffer.alloc(4096), Buffer.alloc(1)]) {
          try {
            for (;;) writeSync(fd, block);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
  };
}
