/**
 * The processes an agent started, found from /proc (Linux) so that all of them end with it.
 *
 * The agent's process group alone is not enough: a descendant that calls setsid (or a daemon's
 * double fork) leaves it and outlives a group kill. So three marks are combined, each finding what
 * another misses:
 * - The environment cookie. The agent starts with a variable holding a value of its own, which every
 *   descendant inherits: it finds a process after setsid, and after a double fork whose middle
 *   process has exited, so that nothing links it to the agent any more (Jenkins' ProcessTreeKiller
 *   finds escaped build processes so). Only a process that clears its environment escapes it.
 * - The agent's cgroup, where one could be made (tree-cgroup.ts): the kernel keeps every process
 *   the agent starts in it, so it also finds one that cleared its environment, left the group and
 *   lost its parent (`env -i setsid sh -c 'sleep 1000 &'`). Without one, such a process escapes.
 * - Parenthood: the descendants of every member, by the parent pid in `/proc/<pid>/stat`, so a
 *   process that cleared its environment is found while its parent chain holds. (That field gives
 *   what `/proc/<pid>/task/<tid>/children` gives, for every process in one pass, without
 *   CONFIG_PROC_CHILDREN.)
 * - The process group, only while it is known to be the agent's: its leader alive as the same
 *   process, or its exit being handled right now. A group id is not given to a new process while
 *   the group has members, so members found then are the agent's; later the id may have been reused.
 * Only processes of this user are considered: nothing else is ours to signal. This process and its
 * ancestors never count, should they carry the cookie (a runtime started by an agent).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isSameProcessAlive } from './process-identity.js';
import { cgroupMembers } from './tree-cgroup.js';

/** The variable that marks an agent's environment; its value is the tree's cookie. */
export const TREE_COOKIE_VARIABLE = 'STATEWRIGHT_PROCESS_TREE';

/** What a tree is known by: its leader (which leads its own group) and the cookie it was started with. */
export interface TreeRoot {
  readonly pid: number;
  readonly pidStart: string;
  /** Absent for an agent started before cookies were recorded: then only group and parenthood find its tree. */
  readonly cookie?: string;
  /** The cgroup the agent was started in (tree-cgroup.ts), where one could be made. */
  readonly cgroup?: string;
}

/** One process of a tree: pid and start time name it; its group tells whether a group signal reaches it. */
export interface TreeMember {
  readonly pid: number;
  readonly start: string;
  readonly pgid: number;
}

export interface FindTreeOptions {
  /**
   * Whether processes in the leader's group count though the leader is gone: true only while its
   * exit is being handled. While the leader is alive as the same process its group always counts.
   */
  readonly leaderJustExited: boolean;
  /** Processes found before: still members while they are the same processes. */
  readonly known?: readonly TreeMember[];
}

interface ProcEntry extends TreeMember {
  readonly ppid: number;
  readonly uid: number;
}

const hasProc = existsSync('/proc/self/stat');

/** Whether trees can be found here: Linux, with /proc. Elsewhere only the leader's group can be signalled. */
export const canFindTrees = (): boolean => hasProc;

/**
 * The live processes of the tree (the leader too while it lives), or undefined without /proc.
 * Zombies are left out: they have exited.
 */
export function findProcessTree(root: TreeRoot, options: FindTreeOptions): TreeMember[] | undefined {
  if (!hasProc) return undefined;
  const uid = process.getuid?.();
  const entries = new Map<number, ProcEntry>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readEntry(Number(name));
    if (entry) entries.set(entry.pid, entry);
  }
  const excluded = ancestorsOfThisProcess(entries);
  const groupCounts = options.leaderJustExited || isSameProcessAlive(root.pid, root.pidStart);
  const known = new Set((options.known ?? []).map((m) => `${m.pid}:${m.start}`));
  const cookie = root.cookie === undefined ? undefined : Buffer.from(`${TREE_COOKIE_VARIABLE}=${root.cookie}\0`);
  const members = new Map<number, ProcEntry>();
  const candidates = [...entries.values()].filter((e) => e.uid === uid && !excluded.has(e.pid));
  const inCgroup = new Set(root.cgroup === undefined ? [] : cgroupMembers(root.cgroup));
  for (const entry of candidates) {
    if (
      inCgroup.has(entry.pid) ||
      (groupCounts && entry.pgid === root.pid) ||
      known.has(`${entry.pid}:${entry.start}`) ||
      (cookie && carries(entry.pid, cookie))
    ) {
      members.set(entry.pid, entry);
    }
  }
  // Descendants of members, however deep: each pass adds the children of what the last one added.
  for (let added = true; added; ) {
    added = false;
    for (const entry of candidates) {
      if (!members.has(entry.pid) && members.has(entry.ppid)) {
        members.set(entry.pid, entry);
        added = true;
      }
    }
  }
  return [...members.values()].map(({ pid, start, pgid }) => ({ pid, start, pgid }));
}

/** Fields 3 (state), 4 (ppid), 5 (pgrp) and 22 (start time) of /proc/<pid>/stat, and the owner; undefined for a zombie or a process gone meanwhile. */
function readEntry(pid: number): ProcEntry | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may itself hold spaces and parentheses.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X' || fields[19] === undefined) return undefined;
    return {
      pid,
      ppid: Number(fields[1]),
      pgid: Number(fields[2]),
      start: fields[19],
      uid: statSync(`/proc/${pid}`).uid,
    };
  } catch {
    return undefined;
  }
}

function ancestorsOfThisProcess(entries: ReadonlyMap<number, ProcEntry>): Set<number> {
  const ancestors = new Set<number>();
  for (
    let pid: number | undefined = process.pid;
    pid !== undefined && pid > 0 && !ancestors.has(pid);
    pid = entries.get(pid)?.ppid
  )
    ancestors.add(pid);
  return ancestors;
}

/** Whether the environment `pid` started with holds the cookie (unreadable: not ours, or gone). */
function carries(pid: number, cookie: Buffer): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`);
    const at = environ.indexOf(cookie);
    return at === 0 || (at > 0 && environ[at - 1] === 0);
  } catch {
    return false;
  }
}
