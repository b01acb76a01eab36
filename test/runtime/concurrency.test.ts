import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { RunHeldError, sqliteStore } from '../../src/stores/index.js';
import { testDir } from '../stores/temp-dir.js';

describe('two runtimes on one SQLite file', () => {
  it("let only the holder of the run's lease apply a conflicting transition; the other is refused naming it, and sees the winner", async () => {
    const path = join(testDir('two'), 'state.db');
    const [storeA, storeB] = [sqliteStore(path), sqliteStore(path)];
    const a = await createRuntime({ store: storeA, machines: lifecycles, owner: 'a' });
    const b = await createRuntime({ store: storeB, machines: lifecycles, owner: 'b' });
    const { runId } = await a.start('execution');
    await a.dispatch(runId, { type: 'ENQUEUE' });
    await b.getSnapshot(runId);

    // a's transition leaves the run active: were it to end the run (CANCEL), b could claim the
    // ended run once a's commit is in, and be refused START as an invalid transition instead.
    const outcomes = await Promise.allSettled([
      a.dispatch(runId, { type: 'START' }),
      b.dispatch(runId, { type: 'CANCEL' }),
    ]);
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    // 'a' started the run and holds its lease: 'b' may not host it beside it.
    expect(outcomes[0]!.status).toBe('fulfilled');
    expect(lost[0]!.reason).toBeInstanceOf(RunHeldError);
    expect(lost[0]!.reason.message).toMatch(
      /hosted by 'a'.*send its events to that host, or retry once its lease runs out/,
    );

    const history = await a.history(runId);
    expect(history.map((e) => e.seq)).toEqual([1, 2]);
    const winner = (won[0] as PromiseFulfilledResult<{ state: string }>).value.state;
    expect(history[1]!.after).toBe(winner);
    // The loser reloaded: both runtimes now agree with the store.
    expect((await a.getSnapshot(runId)).state).toBe(winner);
    expect((await b.getSnapshot(runId)).state).toBe(winner);
    await Promise.all([a.close(), b.close()]);
    await Promise.all([storeA.close(), storeB.close()]);
  });
});
