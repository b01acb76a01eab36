/**
 * The file beside an agent's log (`<logPath>.pid`) that records which process it is: what a
 * restarted actor reads to adopt a running agent instead of spawning a second one, and to find
 * what the agent left running after it is gone.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { PRIVATE_FILE_MODE } from '../os/private-files.js';

/** What `<logPath>.pid` holds: enough to find the process again and to resume reading its log. */
export interface PidRecord {
  pid: number;
  pidStart: string;
  /** Where this process's output starts in the log (the log is appended to across attempts). */
  logOffset: number;
  /** The value of TREE_COOKIE_VARIABLE in the agent's environment: finds its descendants (see process-tree.ts). */
  cookie?: string;
  /** The cgroup the agent was started in (see tree-cgroup.ts), where one could be made. */
  cgroup?: string;
  /** The metering proxy the agent was pointed at (agent-wire/): an adopting host listens there again. */
  wire?: { port: number; secret: string };
}

/** The record at `path`, or undefined when there is none or it is torn. */
export function readPidRecord(path: string): PidRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(path, 'utf8')) as Partial<PidRecord>;
    if (typeof record.pid === 'number' && typeof record.pidStart === 'string') {
      return {
        pid: record.pid,
        pidStart: record.pidStart,
        logOffset: typeof record.logOffset === 'number' ? record.logOffset : 0,
        ...(typeof record.cookie === 'string' && { cookie: record.cookie }),
        ...(typeof record.cgroup === 'string' && { cgroup: record.cgroup }),
        ...(typeof record.wire?.port === 'number' &&
          typeof record.wire.secret === 'string' && { wire: { port: record.wire.port, secret: record.wire.secret } }),
      };
    }
  } catch {
    // No record (never spawned) or a torn one: there is nothing to adopt.
  }
  return undefined;
}

/** Written aside, then renamed into place: a reader never sees half a record. */
export function writePidRecord(path: string, record: PidRecord): void {
  const temp = `${path}.tmp`;
  writeFileSync(temp, JSON.stringify(record), { mode: PRIVATE_FILE_MODE });
  renameSync(temp, path);
}
