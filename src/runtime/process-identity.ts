import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * The kernel's start time of a process (field 22 of /proc/<pid>/stat, in clock ticks since boot),
 * or undefined where /proc has no such process. Together with the pid it names one process:
 * a pid reused by another program later has another start time.
 */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: count from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/**
 * Whether the process identified by pid and start time still runs. A process on another host
 * cannot be checked from here and counts as alive: never take over what may still be owned.
 */
export function isProcessAlive(identity: { pid: number; pidStart?: string; host?: string }): boolean {
  if (identity.host !== undefined && identity.host !== hostname()) return true;
  try {
    process.kill(identity.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (identity.pidStart === undefined) return true;
  const start = processStartTime(identity.pid);
  return start === undefined || start === identity.pidStart;
}

export const thisHost = () => hostname();
