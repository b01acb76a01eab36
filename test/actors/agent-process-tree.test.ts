/**
 * An agent's whole process tree ends with its run (issue 29): what it left in its process group,
 * what left the group with setsid, and what a double fork left with no parent, whether the agent
 * exits, is stopped, exits after a hand-over, or is found gone by a restarted actor. And an agent's
 * output that is not JSON is summarised in the log, not warned about line by line.
 */
import { execa } from 'execa';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor, type AnyActorRef } from 'xstate';
import { ManualClock } from '../../src/actor-contract/clock.js';
import { createAgentProcess, type AgentProcessInput } from '../../src/actors/agent-process.js';
import { isSameProcessAlive, processStartTime } from '../../src/os/process-identity.js';
import { TREE_COOKIE_VARIABLE } from '../../src/os/process-tree.js';
import { makeTreeCgroup, removeTreeCgroup } from '../../src/os/tree-cgroup.js';
import { endWithTest } from '../support/child-processes.js';
import { RecordingRun } from '../support/recording-run.js';

/** Whether this process may make cgroups here (and so each agent gets one). */
const cgroupsHere = (() => {
  const probe = makeTreeCgroup();
  if (probe) removeTreeCgroup(probe);
  return probe !== undefined;
})();

const standIn = fileURLToPath(new URL('../fixtures/agents/leave-descendants.sh', import.meta.url));
const ENDED = "the agent's process tree has ended";

let dir: string;
let pidsFile: string;
const actors: AnyActorRef[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'statewright-tree-'));
  pidsFile = join(dir, 'descendants.pids');
});

// However the test ended: what it left running goes with it, before the list of it does.
afterEach(() => {
  for (const actor of actors.splice(0)) actor.stop();
  killListedDescendants(pidsFile);
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Kills each process the stand-in listed in `file` that still carries that file's name in its
 * environment: the stand-in's, not another that reused its pid.
 */
function killListedDescendants(file: string): void {
  if (!existsSync(file)) return;
  for (const pid of readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number)) {
    try {
      if (readFileSync(`/proc/${pid}/environ`).includes(`STANDIN_TREE_PIDS=${file}\0`)) process.kill(pid, 'SIGKILL');
    } catch {
      // Gone, as it should be.
    }
  }
}

function start(input: Partial<AgentProcessInput>, run = new RecordingRun()) {
  const actor = createActor(createAgentProcess({ pollMs: 20 })(run), {
    input: {
      command: [standIn],
      logPath: join(dir, 'agent.log'),
      cwd: dir,
      ...input,
      env: { STANDIN_TREE_PIDS: pidsFile, ...input.env },
    },
  }).start();
  actors.push(actor);
  return { run, actor };
}

/** The agent and the descendants it listed (three, or `count`), by pid and start time; read once the session is reported (the list is complete then). */
async function treeOf(run: RecordingRun, count = 3) {
  await run.next('agent.session');
  const { pid, pidStart } = run.events('agent.spawned')[0]!;
  endWithTest(pid);
  const descendants = readFileSync(pidsFile, 'utf8').trim().split('\n').map(Number);
  expect(descendants).toHaveLength(count);
  return {
    leader: { pid, start: pidStart as string },
    descendants: descendants.map((pid) => ({ pid, start: processStartTime(pid) })),
  };
}

/** What of `processes` still runs, from /proc: the same pid with the same start time, not a zombie. */
const stillRunning = (processes: Array<{ pid: number; start: string | undefined }>) =>
  processes.filter((p) => p.start !== undefined && isSameProcessAlive(p.pid, p.start)).map((p) => p.pid);

const treeEnded = (run: RecordingRun) =>
  run.until(
    () => run.logs.find((l) => l.message.startsWith(ENDED) || l.level === 'error'),
    'the agent process tree was never reported ended',
    15_000,
  );

describe("the agent's process tree", () => {
  it('ends, when the agent exits, what it left running: in its group, after setsid, and double-forked', async () => {
    const { run } = start({});
    const { descendants } = await treeOf(run);
    // Alive when the agent has spoken: the stand-in started them before its first line.
    expect(descendants.every((d) => d.start !== undefined)).toBe(true);
    expect(await run.next('agent.exited')).toMatchObject({ code: 0 });
    const ended = await treeEnded(run);
    expect(ended.message).toBe(`${ENDED} (3 got SIGTERM, 0 SIGKILL)`);
    expect([...(ended.data!.terminated as number[])].sort()).toEqual(descendants.map((d) => d.pid).sort());
    expect(stillRunning(descendants)).toEqual([]);
  });

  // Where a cgroup can be made (cgroup v2, this user's own subtree or root): without one, this one escapes (docs/hosting.md).
  it.runIf(cgroupsHere)(
    'ends one that cleared its environment, left the group and lost its parent (env -i setsid), by its cgroup',
    async () => {
      const { run } = start({ env: { STANDIN_ESCAPE: '1' } });
      const { leader, descendants } = await treeOf(run, 4);
      const escaped = descendants[3]!;
      expect(escaped.start).toBeDefined();
      // No tie but the cgroup: no cookie, and parent, group and session none of the agent's.
      const fields = (pid: number) => {
        const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const [, ppid, pgrp, session] = text
          .slice(text.lastIndexOf(')') + 2)
          .split(' ')
          .map(Number);
        return { ppid, pgrp, session };
      };
      expect(readFileSync(`/proc/${escaped.pid}/environ`).includes(TREE_COOKIE_VARIABLE)).toBe(false);
      const agent = fields(leader.pid);
      const its = fields(escaped.pid);
      expect([its.ppid === leader.pid, its.pgrp === agent.pgrp, its.session === agent.session]).toEqual([
        false,
        false,
        false,
      ]);
      expect(await run.next('agent.exited')).toMatchObject({ code: 0 });
      const ended = await treeEnded(run);
      expect(ended.message).toBe(`${ENDED} (4 got SIGTERM, 0 SIGKILL)`);
      expect(stillRunning(descendants)).toEqual([]);
    },
  );

  it('leaves no grace timer behind when what it left ends on SIGTERM (a command can exit at once)', async () => {
    const clock = new ManualClock();
    const { run } = start({}, new RecordingRun('run-1', 'codon', clock));
    await treeOf(run);
    await run.next('agent.exited');
    expect((await treeEnded(run)).message).toBe(`${ENDED} (3 got SIGTERM, 0 SIGKILL)`);
    // The grace period's timer, on the run's clock, was cleared with the tree's end.
    expect(clock.pendingTimers).toBe(0);
  });

  it('kills, after the grace period, what ignores SIGTERM', async () => {
    const { run } = start({ env: { STANDIN_IGNORE_TERM: '1' }, graceMs: 300 });
    const { descendants } = await treeOf(run);
    await run.next('agent.exited');
    const ended = await treeEnded(run);
    expect(ended.message).toBe(`${ENDED} (3 got SIGTERM, 3 SIGKILL)`);
    expect(stillRunning(descendants)).toEqual([]);
  });

  it('ends the agent and everything it started when the actor is stopped mid-run', async () => {
    // All of it ends on SIGTERM; a grace period far longer than a busy machine can keep a dying
    // process around (the default 5 s ran out once in a whole-suite run, and one was SIGKILLed), so
    // that what is asserted is what the tree does, not how loaded the machine was.
    const { run, actor } = start({ env: { STANDIN_HANG: '1' }, graceMs: 60_000 });
    const { leader, descendants } = await treeOf(run);
    expect(stillRunning([leader, ...descendants])).toHaveLength(4);
    actor.stop();
    const ended = await treeEnded(run);
    // The agent and its three, and the `sleep 1` of its loop.
    expect(ended.data!.terminated).toEqual(expect.arrayContaining([leader.pid, ...descendants.map((d) => d.pid)]));
    expect(ended.data!.killed).toEqual([]);
    expect(stillRunning([leader, ...descendants])).toEqual([]);
    expect(run.events('agent.exited')).toEqual([]);
  });

  it('after a hand-over, leaves the running agent alone, and ends what it left once it exits', async () => {
    const run = new (class extends RecordingRun {
      handingOver = false;
    })();
    const { actor } = start({ env: { STANDIN_HANG: '1' } }, run);
    const { leader, descendants } = await treeOf(run);
    run.handingOver = true;
    actor.stop();
    expect(run.logs.at(-1)).toMatchObject({ message: 'handing the agent over to the restored actor' });
    // The agent dies (its host would adopt it); its exit is still handled by the supervisor that spawned it.
    process.kill(leader.pid, 'SIGKILL');
    const ended = await treeEnded(run);
    // The descendants were still running when the agent had exited: the hand-over had not ended them.
    expect([...(ended.data!.terminated as number[])].sort()).toEqual(
      expect.arrayContaining(descendants.map((d) => d.pid)),
    );
    expect(ended.data!.terminated).not.toContain(leader.pid);
    expect(stillRunning(descendants)).toEqual([]);
  });

  it('a restarted actor that finds its agent gone ends what the agent left, found by its environment', async () => {
    // The agent an earlier host started, with the cookie it recorded; it has exited since.
    const logPath = join(dir, 'agent.log');
    const out = openSync(logPath, 'a');
    const cookie = `test-${process.pid}-${Date.now()}`;
    const child = execa(standIn, [], {
      detached: true,
      stdin: 'ignore',
      stdout: out as 3,
      stderr: 'ignore',
      cwd: dir,
      reject: false,
      env: { STANDIN_TREE_PIDS: pidsFile, [TREE_COOKIE_VARIABLE]: cookie },
    });
    closeSync(out);
    endWithTest(child.pid);
    writeFileSync(
      `${logPath}.pid`,
      JSON.stringify({ pid: child.pid, pidStart: processStartTime(child.pid!), logOffset: 0, cookie }),
    );
    await child;
    const descendants = readFileSync(pidsFile, 'utf8')
      .trim()
      .split('\n')
      .map((pid) => ({ pid: Number(pid), start: processStartTime(Number(pid)) }));
    expect(stillRunning(descendants)).toHaveLength(3);

    const { run } = start({ command: ['false'] });
    expect(await run.next('agent.exited')).toMatchObject({ reason: 'process gone before restart' });
    const ended = await treeEnded(run);
    expect(ended.message).toBe(`${ENDED} (3 got SIGTERM, 0 SIGKILL)`);
    expect(stillRunning(descendants)).toEqual([]);
  });
});

describe("an agent's output that is not JSON", () => {
  it('is warned about line by line only for the first few lines, then counted once', async () => {
    const { run } = start({ command: ['sh', '-c', 'yes "not json" | head -n 1000'] });
    await run.next('agent.exited');
    const warnings = run.logs.filter((l) => l.level === 'warn');
    expect(warnings.map((w) => w.message)).toEqual([
      ...Array.from({ length: 5 }, () => expect.stringMatching(/^agent log line ignored: not JSON/)),
      expect.stringMatching(
        /^995 more warnings about the agent's output were counted, not logged \(1000 in all\); the latest: agent log line ignored: not JSON/,
      ),
    ]);
    expect(warnings.at(-1)!.data).toMatchObject({
      logPath: join(dir, 'agent.log'),
      offset: 999 * 9,
      unlogged: 995,
      total: 1000,
    });
  });
});
