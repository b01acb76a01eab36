/**
 * Telling one process from another. A pid alone is not an identity: pids are reused. The start
 * time the kernel records for a process is fixed for its life, so pid plus start time names one
 * process on one host. Zombies have a start time but count as gone: they have exited and only wait
 * to be reaped.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const hasProc = existsSync('/proc/self/stat');

interface ProcessStat {
  start: string;
  zombie: boolean;
}

function stat(pid: number): ProcessStat | undefined {
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

/** Elsewhere (macOS, BSD): `ps` prints the start time to the second, and the state. */
function fromPs(pid: number): ProcessStat | undefined {
  try {
    const line = execFileSync('ps', ['-o', 'stat=', '-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    const match = /^(\S+)\s+(.+)$/.exec(line);
    return match ? { start: match[2]!, zombie: match[1]!.startsWith('Z') } : undefined;
  } catch {
    return undefined;
  }
}

/** The process's start time as the OS reports it (a zombie's too), or undefined when there is no such process. */
export function processStartTime(pid: number): string | undefined {
  return stat(pid)?.start;
}

/** Whether the process `pid` is alive (not a zombie) and, when `start` is given, is the one that started then. */
export function isSameProcessAlive(pid: number, start: string | undefined): boolean {
  const current = stat(pid);
  return current !== undefined && !current.zombie && (start === undefined || start === '' || current.start === start);
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
