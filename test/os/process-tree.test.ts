/**
 * How an agent's process tree is found (Linux, /proc): by the cookie in the environment, by
 * parenthood, and by the process group only while that group is known to be the agent's.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { processStartTime } from '../../src/os/process-identity.js';
import { canFindTrees, findProcessTree, TREE_COOKIE_VARIABLE } from '../../src/os/process-tree.js';
import { endWithTest } from '../support/child-processes.js';

/** Kills, when the test ends, every process whose environment holds `marker`. */
function killMarkedWithTest(marker: string): void {
  onTestFinished(() => {
    for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
      try {
        if (readFileSync(`/proc/${name}/environ`).includes(marker)) process.kill(Number(name), 'SIGKILL');
      } catch {
        // Gone, or not ours.
      }
    }
  });
}

/** Resolves once each of `pids` runs `sleep`. */
async function execed(pids: number[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!pids.every((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sleep')) {
    if (Date.now() > deadline) throw new Error(`${pids.join(', ')} never became sleep`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe.runIf(canFindTrees())('finding a process tree', () => {
  it('finds the cookie after setsid, a cleared environment by its parent, and the group only while it is known to be the leader’s', async () => {
    const cookie = randomUUID();
    killMarkedWithTest(cookie);
    // The leader starts: one in its group without the cookie, one after setsid, and a setsid shell
    // whose child cleared its environment (marked for the cleanup only, under another name).
    const script = [
      `env -u ${TREE_COOKIE_VARIABLE} CLEANUP=${cookie} sleep 600 >/dev/null & echo "group $!"`,
      'setsid sleep 600 >/dev/null & echo "setsid $!"',
      `setsid sh -c 'env -i CLEANUP=${cookie} sleep 600 >/dev/null & echo "cleared $!"; echo "middle $$"; wait' &`,
      'exec sleep 600',
    ].join('\n');
    const leader = spawn('sh', ['-c', script], {
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
      env: { ...process.env, [TREE_COOKIE_VARIABLE]: cookie },
    });
    endWithTest(leader.pid);
    const pids = await new Promise<Record<string, number>>((resolve) => {
      const found: Record<string, number> = {};
      leader.stdout!.on('data', (chunk: Buffer) => {
        for (const [, name, pid] of chunk.toString().matchAll(/(\w+) (\d+)/g)) found[name!] = Number(pid);
        if (Object.keys(found).length === 4) resolve(found);
      });
    });
    // Until they have become `sleep`, the forked shells still hold the environment they started with.
    await execed([pids.group!, pids.cleared!]);
    const root = { pid: leader.pid!, pidStart: processStartTime(leader.pid!)!, cookie };
    const pidsOf = (members: Array<{ pid: number }> | undefined) => (members ?? []).map((m) => m.pid).sort();

    expect(pidsOf(findProcessTree(root, { leaderJustExited: false }))).toEqual(
      [leader.pid, pids.group, pids.setsid, pids.middle, pids.cleared].sort(),
    );
    // While the leader lives, its children and theirs are found by parenthood alone.
    const otherCookie = { ...root, cookie: randomUUID() };
    expect(pidsOf(findProcessTree(otherCookie, { leaderJustExited: false }))).toEqual(
      [leader.pid, pids.group, pids.setsid, pids.middle, pids.cleared].sort(),
    );

    const exited = new Promise((resolve) => leader.once('exit', resolve));
    leader.kill('SIGKILL');
    await exited;
    // The leader gone, the ones that left its group are orphans: only the cookie finds them, and the
    // cleared one by its parent.
    expect(pidsOf(findProcessTree(otherCookie, { leaderJustExited: false }))).toEqual([]);
    // Its group counts only while its exit is handled (the group id may be reused later) ...
    expect(pidsOf(findProcessTree(root, { leaderJustExited: true }))).toEqual(
      [pids.group, pids.setsid, pids.middle, pids.cleared].sort(),
    );
    expect(pidsOf(findProcessTree(root, { leaderJustExited: false }))).toEqual(
      [pids.setsid, pids.middle, pids.cleared].sort(),
    );
    // ... or as processes found before, by pid and start time.
    const group = { pid: pids.group!, start: processStartTime(pids.group!)!, pgid: leader.pid! };
    expect(pidsOf(findProcessTree(root, { leaderJustExited: false, known: [group] }))).toEqual(
      [pids.group, pids.setsid, pids.middle, pids.cleared].sort(),
    );
    expect(
      pidsOf(findProcessTree(root, { leaderJustExited: false, known: [{ ...group, start: `${group.start}0` }] })),
    ).toEqual([pids.setsid, pids.middle, pids.cleared].sort());
  });
});
