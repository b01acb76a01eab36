/**
 * Telling one process from another. A pid alone is not an identity: pids are reused. The start
 * time the kernel records for a process is fixed for its life, so pid plus start time names one
 * process on one host. Zombies count as gone: they have exited and only wait to be reaped.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const hasProc = existsSync('/proc/self/stat');

/** The process's start time as the OS reports it, or undefined when no such live process exists. */
export function processStartTime(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return hasProc ? fromProc(pid) : fromPs(pid);
}

/** Linux: field 22 of /proc/<pid>/stat, in clock ticks since boot. */
function fromProc(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
  return fields[19];
}

/** Elsewhere (macOS, BSD): `ps` prints the start time to the second. */
function fromPs(pid: number): string | undefined {
  try {
    const started = execFileSync('ps', ['-o', 'lstart=', '-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    if (!started || / Z\S*$/.test(started)) return undefined;
    return started.replace(/\s+\S+$/, '');
  } catch {
    return undefined;
  }
}

/** Whether the process `pid` is alive and, when `start` is given, is the one that started then. */
export function isSameProcessAlive(pid: number, start: string | undefined): boolean {
  const current = processStartTime(pid);
  return current !== undefined && (start === undefined || start === '' || current === start);
}

/** Sends `signal` to the process group `pgid`; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}
