/**
 * The session lifecycle hosted by the real runtime (memory store, simulated clock): the recovery
 * hook after a restart and the durable start timeout. The agent is the machine's placeholder here;
 * the real agent process is in session-agents.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createRuntime, ManualClock, type Runtime } from '../../src/runtime/index.js';
import { memoryStore, type Store } from '../../src/stores/index.js';
import { ev, input, T0 } from '../machines/session-fixtures.js';

const open: Runtime[] = [];
afterEach(async () => {
  for (const runtime of open.splice(0)) await runtime.close();
});

async function runtimeOn(store: Store, clock: ManualClock, recover = true) {
  const runtime = await createRuntime({ store, machines: lifecycles, clock, recover });
  open.push(runtime);
  return runtime;
}

describe('sessions under the runtime', () => {
  it('fails every session a previous daemon left active, and leaves finished ones alone', async () => {
    const store = memoryStore();
    const clock = new ManualClock(T0);
    const first = await runtimeOn(store, clock);
    await first.start('session', { id: 'starting', input: input() });
    await first.start('session', { id: 'running', input: input() });
    await first.dispatch('running', ev.session(T0 + 1_000));
    await first.start('session', { id: 'waiting', input: input() });
    await first.dispatch('waiting', ev.session(T0 + 1_000));
    await first.dispatch('waiting', ev.approval(T0 + 2_000));
    await first.start('session', { id: 'done', input: input() });
    await first.dispatch('done', ev.session(T0 + 1_000));
    await first.dispatch('done', ev.result(T0 + 2_000));
    await first.dispatch('done', ev.exited(T0 + 2_100, 0));
    await first.close();

    clock.set(T0 + 3_600_000);
    const second = await runtimeOn(store, clock);
    await second.flush();
    const byId = Object.fromEntries((await second.list({ machine: 'session' })).map((run) => [run.runId, run]));
    for (const id of ['starting', 'running', 'waiting']) {
      expect(byId[id]!.value, id).toBe('failed');
      expect(byId[id]!.context).toMatchObject({
        error_message: 'Session orphaned due to daemon restart',
        completed_at: T0 + 3_600_000,
      });
      const last = (await second.history(id)).at(-1)!;
      expect(last).toMatchObject({ event: { type: 'SESSION_ORPHANED', at: T0 + 3_600_000 }, actor: 'recovery' });
    }
    expect(byId.done!.value).toBe('completed');
    expect(byId.done!.seq).toBe(3);
  });

  it('fails a session still starting when its start deadline passes, as a timer event', async () => {
    const clock = new ManualClock(T0);
    const runtime = await runtimeOn(memoryStore(), clock);
    await runtime.start('session', { id: 's1', input: input() });
    clock.advance(59_999);
    await runtime.flush();
    expect((await runtime.getSnapshot('s1')).value).toBe('starting');
    clock.advance(1);
    await runtime.flush();
    const run = await runtime.getSnapshot('s1');
    expect(run.value).toBe('failed');
    expect(run.context).toMatchObject({ error_message: 'Timeout waiting for Claude session ID', duration_ms: 60_000 });
    expect((await runtime.history('s1')).at(-1)).toMatchObject({
      event: { type: 'START_TIMEOUT', at: T0 + 60_000 },
      actor: 'timer',
    });
  });

  it('keeps the original start deadline for a session restored without the orphan sweep', async () => {
    const store = memoryStore();
    const first = await runtimeOn(store, new ManualClock(T0));
    await first.start('session', { id: 's1', input: input() });
    // Handed over (not abandoned): the next host applies no recovery rule.
    await first.close({ handOver: true });

    const clock = new ManualClock(T0 + 50_000);
    const second = await runtimeOn(store, clock, false);
    // Without recovery a run is hosted (and its timer armed) when it is first sent an event.
    await second.dispatch('s1', ev.spawned(T0 + 50_000));
    clock.advance(9_999);
    await second.flush();
    expect((await second.getSnapshot('s1')).value).toBe('starting');
    clock.advance(1);
    await second.flush();
    expect((await second.getSnapshot('s1')).context).toMatchObject({
      error_message: 'Timeout waiting for Claude session ID',
      completed_at: T0 + 60_000,
    });
  });
});
