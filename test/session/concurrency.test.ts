/**
 * Two daemons (two runtimes, two connections) on one SQLite file send conflicting transitions to
 * the same session at the same moment: the one that holds the session's lease wins, the other is
 * refused with RunHeldError naming the holder, and the store stays consistent (one event at the
 * next seq, the index keys of the winner, a log that replays to the stored snapshot).
 */
import { join } from 'node:path';
import { fromCallback } from 'xstate';
import { afterEach, describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { verifyRun } from '../../src/runtime/index.js';
import { ApprovalNotPendingError, type SessionDaemon } from '../../src/session/session-daemon.js';
import { startDaemon } from '../support/session-daemon.js';
import { RunHeldError, sqliteStore, type Store } from '../../src/stores/index.js';
import { ev } from '../machines/session-fixtures.js';
import { tempDir } from '../stores/temp-dir.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** No process: these sessions are driven by the events the test sends. */
const noAgent = () => fromCallback(() => {});

async function twoDaemons() {
  const dir = await tempDir('session-two');
  cleanups.push(() => dir.remove());
  const path = join(dir.path, 'state.db');
  const open = async (owner: string) => {
    const store: Store = sqliteStore(path);
    const daemon = await startDaemon({ store, logDir: join(dir.path, 'logs'), agent: noAgent, owner, activity: false });
    cleanups.push(async () => {
      await daemon.close({ timeoutMs: 0 });
      await daemon.runtime.close();
      await store.close();
    });
    return { daemon, store };
  };
  return { a: await open('daemon-a'), b: await open('daemon-b') };
}

async function waitingSession(daemon: SessionDaemon, id: string) {
  await daemon.launch({ id, query: 'Fix the build' });
  await daemon.runtime.dispatch(id, ev.session(Date.now()));
  await daemon.requestApproval(id, { approval_id: 'ap-1', tool_name: 'Bash', tool_input: { command: 'rm -rf build' } });
  return (await daemon.get(id)).status;
}

const conflicts: Array<
  [string, (d: SessionDaemon, id: string) => Promise<unknown>, (d: SessionDaemon, id: string) => Promise<unknown>]
> = [
  ['approve against interrupt', (d, id) => d.approve(id, 'ap-1'), (d, id) => d.interrupt(id, { reason: 'stop' })],
  ['approve against deny', (d, id) => d.approve(id, 'ap-1'), (d, id) => d.deny(id, 'ap-1', { comment: 'not that' })],
];

describe('two daemons on one SQLite file', () => {
  for (const [name, first, second] of conflicts) {
    it(`let exactly one of two conflicting requests win (${name}): the holder's; the other gets RunHeldError and the store stays consistent`, async () => {
      const { a, b } = await twoDaemons();
      expect(await waitingSession(a.daemon, 's1')).toBe('waiting_input');
      const before = (await a.daemon.history('s1')).length;

      const outcomes = await Promise.allSettled([first(a.daemon, 's1'), second(b.daemon, 's1')]);
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]!.reason).toBeInstanceOf(RunHeldError);
      expect(lost[0]!.reason.message).toMatch(
        /Run 's1' is hosted by 'daemon-a' \(epoch 1, lease until .*\): send its events to that host/,
      );
      expect(outcomes[0]!.status).toBe('fulfilled');

      // One event applied, at the next seq; both daemons and the index agree with it.
      const history = await b.daemon.history('s1');
      expect(history.map((e) => e.seq)).toEqual(Array.from({ length: before + 1 }, (_, i) => i + 1));
      const winner = (won[0] as PromiseFulfilledResult<{ status: string }>).value.status;
      expect(history.at(-1)!.after).toBe(winner);
      expect((await a.daemon.get('s1')).status).toBe(winner);
      expect((await b.daemon.get('s1')).status).toBe(winner);
      const listed = winner === 'failed' ? await a.daemon.terminalSessions() : await a.daemon.activeSessions();
      expect(listed.map((s) => s.session_id)).toEqual(['s1']);
      expect(await b.daemon.sessionsAwaitingInput()).toEqual([]);
      expect(await verifyRun(a.store, lifecycles, 's1')).toMatchObject({ ok: true, mismatches: [] });

      // Tried again once the holder hands the session over, the loser is answered from the winner's state: the approval is no longer pending.
      if (name === 'approve against deny') {
        await a.daemon.runtime.close({ handOver: true });
        const loser =
          outcomes[0]!.status === 'rejected' ? () => a.daemon.approve('s1', 'ap-1') : () => b.daemon.deny('s1', 'ap-1');
        await expect(loser()).rejects.toThrow(ApprovalNotPendingError);
        await expect(loser()).rejects.toThrow(
          new RegExp(
            `^Cannot mark approval ap-1 of session s1 (approved|denied): it is already ${winner === 'running' ? '(approved|denied)' : ''}.*; the session is running, pending approvals: none\\.$`,
          ),
        );
      }
    });
  }
});
