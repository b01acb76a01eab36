/**
 * A small disk for full-disk tests: a tmpfs of a given size mounted on a fresh folder (Linux, as
 * root; the project's machines are). Where none can be mounted the caller skips its test with the
 * reason given here, so a green run never hides that the full-disk tests did not run:
 *
 *   const disk = smallDisk(1 << 20);
 *   if ('skipped' in disk) return context.skip(disk.skipped);
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/** Why a tmpfs cannot be mounted by this process, or undefined when it can try. */
function cannotMount(): string | undefined {
  if (process.platform !== 'linux')
    return `full-disk test skipped: it mounts a small tmpfs, which needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0)
    return 'full-disk test skipped: it mounts a small tmpfs, which needs root (run the tests as root to include it)';
  return undefined;
}

/** Mounts a tmpfs of `bytes` on a fresh folder, unmounted and removed when the current test finishes, however it finishes. */
export function smallDisk(bytes: number): { path: string } | { skipped: string } {
  const reason = cannotMount();
  if (reason) return { skipped: reason };
  const path = mkdtempSync(join(tmpdir(), 'statewright-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', path], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (error) {
    rmSync(path, { recursive: true, force: true });
    const stderr = String((error as { stderr?: Buffer }).stderr ?? '').trim();
    return {
      skipped: `full-disk test skipped: mounting a tmpfs on ${path} failed (${stderr || (error as Error).message})`,
    };
  }
  onTestFinished(() => {
    try {
      execFileSync('umount', [path], { stdio: 'ignore' });
    } catch {
      // Still busy (a file left open by a failed test): detach it now, the kernel frees it once closed.
      execFileSync('umount', ['-l', path], { stdio: 'ignore' });
    }
    rmSync(path, { recursive: true, force: true });
  });
  return { path };
}

/**
 * Fills the disk holding `dir` with a file until not one more byte fits (ENOSPC), and returns the
 * function that deletes it again, freeing the space.
 */
export function fillDisk(dir: string): () => void {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'wx');
  try {
    // Big writes first, then smaller ones, until even one byte is refused.
    for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 9, 1]) {
      const chunk = Buffer.alloc(size, 0x66);
      for (;;) {
        try {
          if (writeSync(fd, chunk) < size) break;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return () => unlinkSync(path);
}
