import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { StoreLockedError } from './store-errors.js';

/** Lock files this process holds, so a second store object on the same folder is refused too. */
const held = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the lock file at `path` for this process, or refuses with StoreLockedError naming the
 * holder. A lock left by a process that is gone (killed, crashed) on this host is taken over.
 * Returns the release function.
 */
export function acquireLock(path: string): () => void {
  const absolute = resolve(path);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (held.has(absolute)) throw new StoreLockedError(absolute, `another store object in this process (pid ${process.pid}); close it first`);
    try {
      const fd = openSync(absolute, 'wx');
      try {
        writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }));
      } finally {
        closeSync(fd);
      }
      held.add(absolute);
      return () => {
        if (!held.delete(absolute)) return;
        try {
          unlinkSync(absolute);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder: { pid?: unknown; host?: unknown; since?: unknown } = {};
    try {
      holder = JSON.parse(readFileSync(absolute, 'utf8'));
    } catch {
      // Unreadable or half written by a crash: nobody can be shown to hold it.
    }
    const pid = typeof holder.pid === 'number' ? holder.pid : undefined;
    // An unreadable lock younger than a second may be one another process is writing right now.
    const young = pid === undefined && Date.now() - (statSync(absolute, { throwIfNoEntry: false })?.mtimeMs ?? 0) < 1000;
    // Our own pid without the lock in `held` is a previous process that had our pid.
    const stale = !young && (pid === undefined || (holder.host === hostname() && (pid === process.pid || !alive(pid))));
    if (!stale) throw new StoreLockedError(absolute, `process ${pid} on ${String(holder.host)} since ${String(holder.since)}`);
    try {
      unlinkSync(absolute);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new StoreLockedError(absolute, 'processes that keep taking it over');
}
