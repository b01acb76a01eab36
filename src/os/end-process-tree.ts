/**
 * Ending an agent's whole process tree (see process-tree.ts for how it is found): SIGTERM to every
 * member, then SIGKILL, once the grace period is over, to whatever is left of it. Members forked
 * meanwhile are found by scanning again, and get the same.
 *
 * While the leader lives as the same process its group is signalled as a whole (one atomic kill,
 * which also reaches a process forked after the scan); every other member is signalled on its own,
 * and only while it is still the process the scan found (pid and start time): a pid reused since is
 * never signalled. Without /proc only the group can be reached, as long as its leader lives.
 */
import { isSameProcessAlive, signalGroup, signalSameProcess } from './process-identity.js';
import { canFindTrees, findProcessTree, type TreeMember, type TreeRoot } from './process-tree.js';

/** The part of the runtime's clock the grace period is measured on. */
export interface GraceClock {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface EndTreeOptions {
  /** How long the tree has after SIGTERM before SIGKILL. */
  readonly graceMs: number;
  /** How often to look whether the tree has ended, before the grace period is over and after SIGKILL. */
  readonly pollMs: number;
  readonly clock: GraceClock;
  /** True while the leader's exit is being handled: its group's members still count as the tree's (see FindTreeOptions). */
  readonly leaderJustExited: boolean;
}

export interface TreeEnded {
  /** The processes that got SIGTERM. */
  readonly terminated: readonly TreeMember[];
  /** Those that got SIGKILL: still running after the grace period. */
  readonly killed: readonly TreeMember[];
  /** Those still running after SIGKILL (stuck in the kernel, say): nothing more can be done from here. */
  readonly left: readonly TreeMember[];
}

/** After SIGKILL, how many times to look again (for the killed to be gone, for forks to kill) before giving up. */
const KILL_ROUNDS = 10;

/** The trees being ended, by leader: the supervisor that stops an agent and the one that sees it exit start the same ending. */
const underway = new Set<string>();

/**
 * Ends the tree of `root`: resolves once nothing of it runs (or with what is left after SIGKILL).
 * Undefined when this tree is already being ended: that ending reports it.
 */
export function endProcessTree(root: TreeRoot, options: EndTreeOptions): Promise<TreeEnded> | undefined {
  const key = `${root.pid}:${root.pidStart}`;
  if (underway.has(key)) return undefined;
  underway.add(key);
  const ending = canFindTrees() ? endFoundTree(root, options) : endGroup(root, options);
  return ending.finally(() => underway.delete(key));
}

const memberKey = (m: TreeMember) => `${m.pid}:${m.start}`;
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function endFoundTree(root: TreeRoot, options: EndTreeOptions): Promise<TreeEnded> {
  const terminated = new Map<string, TreeMember>();
  const killed = new Map<string, TreeMember>();
  // Later scans know the group's members by identity: by then the group id may have been reused.
  const scan = (first: boolean) =>
    findProcessTree(root, {
      leaderJustExited: first && options.leaderJustExited,
      known: [...terminated.values(), ...killed.values()],
    }) ?? [];
  const send = (members: readonly TreeMember[], signal: NodeJS.Signals, sent: Map<string, TreeMember>) => {
    const fresh = members.filter((m) => !sent.has(memberKey(m)));
    const inGroup =
      fresh.some((m) => m.pgid === root.pid) &&
      isSameProcessAlive(root.pid, root.pidStart) &&
      signalGroup(root.pid, signal);
    for (const member of fresh) {
      if ((inGroup && member.pgid === root.pid) || signalSameProcess(member.pid, member.start, signal))
        sent.set(memberKey(member), member);
    }
  };
  const alive = (m: TreeMember) => isSameProcessAlive(m.pid, m.start);
  const result = (left: readonly TreeMember[] = []): TreeEnded => ({
    terminated: [...terminated.values()],
    killed: [...killed.values()],
    left,
  });

  let members = scan(true);
  if (members.length === 0) return result();
  send(members, 'SIGTERM', terminated);
  let graceOver = false;
  const grace = options.clock.setTimeout(() => (graceOver = true), options.graceMs);
  try {
    for (;;) {
      await delay(options.pollMs);
      if (!graceOver && [...terminated.values()].some(alive)) continue;
      members = scan(false);
      if (members.length === 0) return result();
      if (graceOver) break;
      // Forked since the last scan: the same SIGTERM, within the same grace period.
      send(members, 'SIGTERM', terminated);
    }
  } finally {
    // A tree that ended on SIGTERM leaves no timer: it would keep a command (`statewright loop`)
    // from exiting for the rest of the grace period.
    options.clock.clearTimeout(grace);
  }
  for (let round = 0; round < KILL_ROUNDS && members.length > 0; round++) {
    send(members, 'SIGKILL', killed);
    await delay(options.pollMs);
    members = scan(false);
  }
  return result(members);
}

/** Without /proc: the group, while its leader lives (after that the group id may name another group). */
async function endGroup(root: TreeRoot, options: EndTreeOptions): Promise<TreeEnded> {
  const leader: TreeMember = { pid: root.pid, start: root.pidStart, pgid: root.pid };
  const alive = () => isSameProcessAlive(root.pid, root.pidStart);
  if (!alive() || !signalGroup(root.pid, 'SIGTERM')) return { terminated: [], killed: [], left: [] };
  await new Promise<void>((resolve) => options.clock.setTimeout(resolve, options.graceMs));
  const killed = alive() && signalGroup(root.pid, 'SIGKILL');
  return { terminated: [leader], killed: killed ? [leader] : [], left: [] };
}
