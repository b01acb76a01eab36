/**
 * Leases across real processes on one project: an executor's `task check` is killed with SIGKILL
 * mid-check, its lease runs out, another executor's `task check` takes over (the interrupted check
 * is declared so by recovery), and a process that hosted the task as the dead executor, frozen
 * meanwhile, is refused when it writes late (the run is held by B's check: it cannot even host it). The TTL (8 s, heartbeat 1 s) leaves a CLI call on a loaded machine
 * ample time to be refused before the dead holder's lease runs out.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/stores/index.js';
import { testDir } from '../stores/temp-dir.js';
import { startCommand, startProgram } from '../support/child-processes.js';
import { until } from '../support/until.js';

/** How long each step may take: the CLI processes start under load. */
const WAIT_MS = 20_000;

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
const staleHolder = new URL('./fixtures/stale-holder.ts', import.meta.url);
const A = 'executor:codex:1';
const B = 'executor:claude:2';

describe('a lease across processes', () => {
  it('expires after its holder is SIGKILLed, is taken over by another executor, and refuses the dead holder late write', async () => {
    const dir = testDir('lease');
    // While `hold` exists the check waits (recording its pid); without it, it passes at once.
    const check = 'if [ -f hold ]; then echo $$ > check.pid; while [ -f hold ]; do sleep 0.05; done; fi; echo checked';
    writeFileSync(
      join(dir, 'ferrus.toml'),
      `[lease]\nttl_secs = 8\nheartbeat_interval_secs = 1\n\n[checks]\ncommands = [${JSON.stringify(check)}]\n`,
    );
    const task = (...args: string[]) =>
      startCommand(process.execPath, [bin, 'task', ...args, '--dir', dir], { reject: false });
    const store = sqliteStore(join(dir, '.statewright', 'state.db'));
    const load = () => store.load('task');
    try {
      expect((await task('create', 'Write done.txt', '--as', 'supervisor:claude:1')).exitCode).toBe(0);

      // A claims; another process hosts the task as A (as a paused part of A would) and freezes
      // itself (SIGSTOP) once it says so. On a store with leases it hosts the run only while it
      // applies its event: a process that held A's run while frozen would be fenced the same way.
      expect((await task('claim', '--as', A)).exitCode).toBe(0);
      const stale = startProgram(staleHolder, [dir, A], { reject: false });
      const hosted = await new Promise<string>((resolve) =>
        stale.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString())),
      );
      expect(hosted).toMatch(/^hosted \d+\n$/);
      const seqOfStale = Number(hosted.split(' ')[1]);

      // A starts a check that holds until told, and commits again after the frozen process.
      writeFileSync(join(dir, 'hold'), '');
      const first = task('check', '--as', A);
      let firstEnded: Awaited<typeof first> | undefined;
      void first.then((result) => (firstEnded = result));
      await until(
        'the first check to run',
        () => {
          if (firstEnded)
            throw new Error(
              `the first check ended (exit ${firstEnded.exitCode}): ${firstEnded.stderr || firstEnded.stdout}`,
            );
          return existsSync(join(dir, 'check.pid'));
        },
        WAIT_MS,
      );
      await until(
        "A's next heartbeat",
        async () => (await load())!.seq > seqOfStale && (await load())!.owner?.pid === first.pid,
        WAIT_MS,
      );

      first.kill('SIGKILL');
      await first;
      process.kill(Number(readFileSync(join(dir, 'check.pid'), 'utf8')), 'SIGKILL'); // the orphaned check command
      const leaseOfA = (await load())!.snapshot as { context: { lease: { claimedBy: string; leaseUntil: number } } };
      expect(leaseOfA.context.lease.claimedBy).toBe(A);

      // Before the lease runs out, B is refused; after, B takes over and checks again.
      const early = await task('claim', '--as', B);
      expect(early.stderr).toMatch(
        new RegExp(`Lease refused \\(claimed_by_other\\): ${B} may not claim .* claimed by ${A} until`),
      );
      await until("A's lease to run out", () => Date.now() > leaseOfA.context.lease.leaseUntil + 50, WAIT_MS);
      const second = task('check', '--as', B);
      await until(
        "B's check to run",
        async () => {
          const row = await load();
          const context = (row?.snapshot as { context: { lease?: { claimedBy: string } } } | undefined)?.context;
          return (
            row?.state === 'Active.Working.Checking.Running' &&
            context?.lease?.claimedBy === B &&
            existsSync(join(dir, 'check.pid')) &&
            readFileSync(join(dir, 'check.pid'), 'utf8')
          );
        },
        WAIT_MS,
      );

      // The frozen process wakes up and writes as A: refused, as B's check holds the task (the
      // process cannot host it); nothing of A's committed (B's heartbeats go on meanwhile).
      const before = (await load())!.seq;
      stale.kill('SIGCONT');
      stale.stdin!.end('go\n');
      const result = await stale;
      const [late, lateHeartbeat] = result.stdout
        .split('\n')
        .slice(1, 3)
        .map((line) => JSON.parse(line));
      expect(late).toMatchObject({ ok: false, name: 'RunHeldError' });
      expect(late.message).toMatch(
        /^Run 'task' is hosted by '.*' \(epoch \d+, lease until .*\): send its events to that host/,
      );
      expect(lateHeartbeat).toMatchObject({ ok: false, name: 'RunHeldError' });
      const since = (await store.history('task')).filter((e) => e.seq > before);
      expect(since.filter((e) => !(e.actor === B && e.event.type === 'heartbeat'))).toEqual([]);

      rmSync(join(dir, 'hold'));
      const done = await second;
      expect([done.exitCode, done.stdout.split('\n')[0]]).toEqual([0, 'task is Checking (checks passed)']);

      const history = await store.history('task');
      const interrupted = history.find((e) => e.actor === 'recovery');
      expect(interrupted?.event).toMatchObject({ type: 'check_failed', interrupted: true });
      expect(String(interrupted?.event.feedback)).toContain(`pid ${first.pid}`);
      const takeover = history.findIndex((e) => e.event.type === 'claim' && e.event.agent === B);
      expect(takeover).toBeGreaterThan(-1);
      expect(history.slice(takeover).filter((e) => e.event.agent === A)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
