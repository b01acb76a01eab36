/**
 * A cgroup (v2) of its own for each agent, where this user may make one: every process the agent
 * starts stays in it whatever it does. A process that clears its environment (no cookie), calls
 * setsid (not in the group) and whose parent exits (reparented to init: no parent chain) is found
 * by nothing else (see process-tree.ts); the kernel keeps it in its cgroup. Node cannot make itself
 * a child subreaper (prctl needs a native addon), so this is the one way from JavaScript.
 *
 * The cgroup is made under this process's own (a delegated subtree, or any as root); where that is
 * not allowed (no cgroup v2, another user's cgroup, a container's read-only /sys/fs/cgroup) there is
 * none, and the tree is found as before. The agent moves itself in before it runs anything: its
 * command is started through `sh`, which writes its own pid into the cgroup and then execs the
 * agent (same pid), so nothing the agent forks can start outside it.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { isSameProcessAlive } from './process-identity.js';

const PREFIX = 'statewright-tree-';

/** Where this process may make cgroups, found once: undefined when it may not. */
let base: string | undefined | null = null;

/** The cgroup2 mount point joined with this process's own cgroup path, if both are known. */
function ownCgroup(): string | undefined {
  try {
    const own = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find((line) => line.startsWith('0::'))
      ?.slice(3);
    const mount = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .find((fields) => fields[fields.indexOf('-') + 1] === 'cgroup2')?.[4];
    return own !== undefined && mount !== undefined ? join(mount, own) : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the empty cgroups left by statewright processes that are gone (a crash leaves its agents' cgroups behind). */
function sweep(dir: string): void {
  for (const name of readdirSync(dir)) {
    const creator = name.startsWith(PREFIX) ? Number(name.slice(PREFIX.length).split('-')[0]) : Number.NaN;
    if (Number.isInteger(creator) && !isSameProcessAlive(creator, undefined)) removeTreeCgroup(join(dir, name));
  }
}

/** A new, empty cgroup for one agent's tree; undefined where this process may not make one. */
export function makeTreeCgroup(): string | undefined {
  if (base === null) {
    base = ownCgroup();
    if (base !== undefined) {
      try {
        sweep(base);
      } catch {
        base = undefined;
      }
    }
  }
  if (base === undefined) return undefined;
  const path = join(base, `${PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    mkdirSync(path);
    return path;
  } catch {
    base = undefined;
    return undefined;
  }
}

/**
 * `command` started through `sh`, which moves itself into `cgroup` and then execs it (same pid); a
 * move that fails (the cgroup gone meanwhile) leaves the agent running without it. A program that
 * cannot be found is left to fail to spawn as it would without the cgroup (ENOENT), not as `sh`'s
 * exit 127: undefined then.
 */
export function inCgroup(
  cgroup: string,
  command: readonly string[],
  where: { cwd?: string | undefined; path?: string | undefined },
): string[] | undefined {
  if (!command[0] || !runnable(command[0], where)) return undefined;
  return ['sh', '-c', 'echo $$ 2>/dev/null > "$0"; exec "$@"', join(cgroup, 'cgroup.procs'), ...command];
}

/** Whether `program` names an executable file: as a path (from `cwd`), or found on `path` as exec would. */
function runnable(program: string, where: { cwd?: string | undefined; path?: string | undefined }): boolean {
  const candidates = program.includes('/')
    ? [resolve(where.cwd ?? '.', program)]
    : (where.path ?? '').split(delimiter).map((dir) => join(resolve(where.cwd ?? '.', dir || '.'), program));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

/** The processes in `cgroup` now (none when it is gone). */
export function cgroupMembers(cgroup: string): number[] {
  try {
    return readFileSync(join(cgroup, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Removes `cgroup` once it is empty; one that still holds a process stays (the kernel refuses). */
export function removeTreeCgroup(cgroup: string): void {
  try {
    rmdirSync(cgroup);
  } catch {
    // Busy, or gone already.
  }
}
