/**
 * Telling one process from another, for the runtime's owner check and the agent actor alike. A pid
 * alone is not an identity: pids are reused. The start time the kernel records for a process is
 * fixed for its life, so pid plus start time names one process on one host. Zombies have a start
 * time but count as gone: they have exited and only wait to be reaped.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';

const hasProc = existsSync('/proc/self/stat');

interface ProcessStat {
  start: string;
  zombie: boolean;
}

/** What the OS says of `pid`: its stat, `undefined` when there is no such process, `unknown` when it cannot tell. */
function stat(pid: number): ProcessStat | undefined | 'unknown' {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return hasProc ? fromProc(pid) : fromPs(pid);
}

/** Linux: field 3 (state) and field 22 (start time, in clock ticks since boot) of /proc/<pid>/stat. */
function fromProc(pid: number): ProcessStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const start = fields[19];
  return start === undefined ? undefined : { start, zombie: fields[0] === 'Z' || fields[0] === 'X' };
}

/** Elsewhere (macOS, BSD): `ps` prints the state and the start time to the second. */
function fromPs(pid: number): ProcessStat | undefined | 'unknown' {
  let line: string;
  try {
    line = execFileSync('ps', ['-o', 'stat=', '-o', 'lstart=', '-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch (error) {
    // ps exits 1 for "no such process"; anything else (no ps at all) means we cannot tell.
    return (error as { status?: number }).status === 1 ? undefined : 'unknown';
  }
  const match = /^(\S+)\s+(.+)$/.exec(line);
  return match ? { start: match[2]!, zombie: match[1]!.startsWith('Z') } : undefined;
}

/** Whether signal 0 reaches `pid` (EPERM: it exists, owned by someone else). */
function signalReaches(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process's start time as the OS reports it (a zombie's too), or undefined when there is no such process. */
export function processStartTime(pid: number): string | undefined {
  const current = stat(pid);
  return current === 'unknown' ? undefined : current?.start;
}

/**
 * Whether the process `pid` is alive (not a zombie) and, when `start` is given, is the one that
 * started then. Where the OS cannot say, a process that signal 0 reaches counts as alive.
 */
export function isSameProcessAlive(pid: number, start: string | undefined): boolean {
  const current = stat(pid);
  if (current === 'unknown') return signalReaches(pid);
  return (
    current !== undefined &&
    !current.zombie &&
    (start === undefined || start === '' || start === 'unknown' || current.start === start)
  );
}

/**
 * Whether the process identified by pid, start time and host still runs. A process on another
 * host cannot be checked from here and counts as alive: never take over what may still be owned.
 */
export function isProcessAlive(identity: { pid: number; pidStart?: string; host?: string }): boolean {
  if (identity.host !== undefined && identity.host !== hostname()) return true;
  return isSameProcessAlive(identity.pid, identity.pidStart);
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

/**
 * Sends `signal` to the process `pid` only if it is still the one that started at `start`, so a
 * pid reused by another process is never signalled; false when it is gone (or not ours to signal).
 */
export function signalSameProcess(pid: number, start: string, signal: NodeJS.Signals): boolean {
  if (!isSameProcessAlive(pid, start)) return false;
  try {
    process.kill(pid, signal);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ESRCH' || code === 'EPERM') return false;
    throw error;
  }
}

export const thisHost = () => hostname();
