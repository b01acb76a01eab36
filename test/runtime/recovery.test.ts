import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lifecycles, type RecoveringRun } from '../../machines/index.js';
import { createRuntime, ManualClock } from '../../src/runtime/index.js';
import { memoryStore, sqliteStore } from '../../src/stores/index.js';
import { timedLifecycle } from '../fixtures/timed-machine.js';
import { testDir } from '../stores/temp-dir.js';
import { startProgram } from '../support/child-processes.js';

const START = Date.UTC(2026, 10, 21, 12);

/** Starts a run in a real child process, then kills it with SIGKILL: the run's owner is dead. */
async function runLeftByKilledProcess(path: string) {
  const child = startProgram(new URL('../fixtures/start-timed-run.ts', import.meta.url), [path, String(START)], {
    reject: false,
  });
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString()));
    child.once('exit', (code) => reject(new Error(`child exited with ${code}: ${child.stderr}`)));
  });
  child.kill('SIGKILL');
  await child;
  return JSON.parse(line) as { runId: string; deadline: number; pid: number };
}

describe('recovery on start', () => {
  it('restores a run whose process died, calls its recovery hook, and fires its timer at the original deadline', async () => {
    const path = join(testDir('recovery'), 'state.db');
    const left = await runLeftByKilledProcess(path);
    expect(left.deadline).toBe(START + 60_000);

    const hookCalls: RecoveringRun[] = [];
    const recovering = {
      ...timedLifecycle,
      recover: (run: RecoveringRun) => {
        hookCalls.push(run);
        return run.previousOwner?.alive === false ? [{ type: 'NOTE', text: 'previous owner died' }] : [];
      },
    };
    const clock = new ManualClock(START + 10_000); // the restart happens 10 s after the run began
    const store = sqliteStore(path);
    const rt = await createRuntime({ store, machines: { ...lifecycles, timed: recovering }, clock });
    await rt.flush();
    expect(hookCalls).toHaveLength(1);
    expect(hookCalls[0]).toMatchObject({
      runId: left.runId,
      now: START + 10_000,
      previousOwner: { pid: left.pid, alive: false },
    });
    const history = await rt.history(left.runId);
    expect(history.at(-1)).toMatchObject({ actor: 'recovery', event: { type: 'NOTE', text: 'previous owner died' } });

    clock.set(left.deadline - 1);
    await rt.flush();
    expect((await rt.getSnapshot(left.runId)).state).toBe('waiting');
    clock.set(left.deadline);
    await rt.flush();
    const after = await rt.getSnapshot(left.runId);
    expect([after.state, after.context.expiredAt]).toEqual(['expired', left.deadline]);
    await rt.close();
    await store.close();
  });

  it('leaves alone a run that a live runtime owns, and restores nothing terminal', async () => {
    const store = memoryStore();
    const machines = { ...lifecycles, timed: timedLifecycle };
    const owner = await createRuntime({ store, machines, owner: 'first' });
    const live = await owner.start('execution');
    const done = await owner.start('execution');
    await owner.dispatch(done.runId, { type: 'SKIP' });

    const calls: string[] = [];
    const watching = { ...lifecycles.execution, recover: (run: RecoveringRun) => (calls.push(run.runId), []) };
    const second = await createRuntime({ store, machines: { ...machines, execution: watching }, owner: 'second' });
    expect(calls).toEqual([]); // 'first' is this very process, alive: its run is not taken over
    await second.close();

    const third = await createRuntime({
      store,
      machines: { ...machines, execution: watching },
      owner: { id: 'third', pid: 2 ** 22 + 1 },
    });
    expect(calls).toEqual([]);
    await third.close();
    await owner.close();
    expect(live.status).toBe('active');
  });

  it('takes over at once the runs of a runtime closed in this same process', async () => {
    const store = memoryStore();
    const first = await createRuntime({ store, machines: lifecycles, owner: 'closed-one' });
    const { runId } = await first.start('execution');
    await first.close();
    const restored: string[] = [];
    const watching = { ...lifecycles.execution, recover: (run: RecoveringRun) => (restored.push(run.runId), []) };
    const second = await createRuntime({
      store,
      machines: { ...lifecycles, execution: watching },
      owner: 'second-one',
    });
    expect(restored).toEqual([runId]);
    await second.close();
  });

  it('reports errors while restoring to the onError option, given before recovery starts', async () => {
    const store = memoryStore();
    const first = await createRuntime({ store, machines: lifecycles, owner: 'v1' });
    const { runId } = await first.start('execution');
    await first.close();
    const errors: string[] = [];
    const v2 = { ...lifecycles, execution: { ...lifecycles.execution, version: 2 } };
    const second = await createRuntime({
      store,
      machines: v2,
      onError: ({ runId: id, error }) => errors.push(`${id} ${error.name}`),
    });
    // The run is set aside (it cannot be restored without a migration) and the error says so.
    expect(errors).toEqual([`${runId} RunSetAsideError`]);
    expect(second.setAside().map((r) => r.runId)).toEqual([runId]);
    await second.close();
  });
});
