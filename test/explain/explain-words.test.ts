/**
 * explain on machines of every shape, in words: a parallel state's regions, named and numeric
 * `after` delays, an invoked promise and a spawned child machine. What a sender can send is apart
 * from what XState does by itself; an awaited actor is apart from a spawned child; a run whose timer
 * or actor needs a host, with none on its store, says to start one.
 */
import { describe, expect, it } from 'vitest';
import { explainRun, explanationText } from '../../src/explain/index.js';
import { defineLifecycle } from '../../src/config/index.js';
import { createRuntime, ManualClock } from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';
import { jsonFileStore } from '../../src/stores/json-file/json-file-store.js';
import { testDir } from '../stores/temp-dir.js';
import { expense, party } from '../fixtures/words-machines.js';

const T0 = Date.UTC(2026, 0, 1, 9);

const machines = {
  expense: defineLifecycle({ name: 'expense', machine: expense }),
  party: defineLifecycle({ name: 'party', machine: party }),
};

describe('explain in words, on machines of any shape', () => {
  it("lists what a sender can send apart from XState's own moves, in words", async () => {
    const runtime = await createRuntime({ store: memoryStore(), machines, clock: new ManualClock(T0) });
    await runtime.start('expense', { id: 'e1' });
    await runtime.dispatch('e1', { type: 'SUBMIT' });
    const checks = await explainRun(runtime, 'e1');
    expect(checks.accepts.map((a) => a.type)).toEqual(['BUDGET_OK', 'RECEIPT_OK']);
    expect(checks.movesOnItsOwn).toEqual([
      {
        event: 'xstate.done.state.expense.checks',
        label: 'when both regions of checks finish',
        to: ['managerApproval'],
      },
    ]);
    expect(checks.verdict).toBe('nothing will move it without an outside event: BUDGET_OK, RECEIPT_OK');
    expect(explanationText(checks)).toContain(
      'moves on its own:\n  when both regions of checks finish -> managerApproval\n',
    );

    await runtime.dispatch('e1', { type: 'RECEIPT_OK' });
    await runtime.dispatch('e1', { type: 'BUDGET_OK' });
    const approval = await explainRun(runtime, 'e1');
    expect(approval.accepts.map((a) => a.type)).toEqual(['APPROVE']);
    expect(approval.movesOnItsOwn.map((m) => [m.label, m.to])).toEqual([
      ['after 1 h', ['timedOut']],
      ['after managerTimeout (2 days)', ['timedOut']],
    ]);
    expect(approval.verdict).toBe(
      'after 1 h -> timedOut, due at 2026-01-01T10:00:00.000Z moves it unless an outside event comes first: APPROVE',
    );

    await runtime.dispatch('e1', { type: 'APPROVE' });
    const paying = await explainRun(runtime, 'e1');
    // The invoke has no id: XState calls it "0.expense.paying"; its actor's name says more.
    expect(paying.actors).toEqual({ awaited: ['payout'], spawned: [] });
    expect(paying.verdict).toBe('waiting for payout to report');
    const refused = await runtime.dispatch('e1', { type: 'APPROVE' }).catch((error: Error) => error);
    expect((refused as Error).message).toBe(
      "Invalid transition: cannot apply event 'APPROVE' in state 'paying'; 'paying' accepts no events; it moves on its own: when payout is done -> paid; when payout fails -> failed",
    );
    for (const x of [checks, approval, paying]) expect(explanationText(x)).not.toMatch(/xstate\./);
    await runtime.close();
  });

  it('tells a spawned child machine, driven through the run, from an actor it waits on', async () => {
    const runtime = await createRuntime({ store: memoryStore(), machines, clock: new ManualClock(T0) });
    await runtime.start('party', { id: 'p1' });
    const gathering = await explainRun(runtime, 'p1');
    expect(gathering.actors).toEqual({ awaited: [], spawned: ['friend-ada'] });
    expect(gathering.accepts.map((a) => a.type)).toEqual(['WAVE_ADA', 'LEAVE']);
    expect(gathering.verdict).toBe(
      'nothing will move it without an outside event: WAVE_ADA, LEAVE; friend-ada runs beside it (spawned, not waited on; when friend-ada is done -> over)',
    );
    expect(explanationText(gathering)).toContain('actors: friend-ada (spawned, runs beside it)\n');
    await runtime.dispatch('p1', { type: 'WAVE_ADA' });
    await runtime.flush();
    expect((await runtime.getSnapshot('p1')).state).toBe('over');
    await runtime.close();
  });

  it('a run whose timer or actor needs a host, with none on its store, says to start one', async () => {
    const store = jsonFileStore(testDir('explain-words-offline'));
    const clock = new ManualClock(T0);
    const runtime = await createRuntime({
      store,
      machines,
      clock,
      recover: false,
      owner: { id: 'gone-host', pid: 2 ** 22 + 17, pidStart: 'never' },
    });
    await runtime.start('expense', { id: 'timed' });
    for (const type of ['SUBMIT', 'RECEIPT_OK', 'BUDGET_OK']) await runtime.dispatch('timed', { type });
    await runtime.start('expense', { id: 'paying' });
    for (const type of ['SUBMIT', 'RECEIPT_OK', 'BUDGET_OK', 'APPROVE']) await runtime.dispatch('paying', { type });
    await runtime.start('party', { id: 'party' });
    await runtime.close();
    const offline = { store, machines, clock, noHost: true };
    expect((await explainRun(offline, 'timed')).verdict).toBe(
      'no live process hosts it, and its timer fires only in one: start `statewright serve` on its store to fire it; then: after 1 h -> timedOut, due at 2026-01-01T10:00:00.000Z moves it unless an outside event comes first: APPROVE',
    );
    expect((await explainRun(offline, 'paying')).verdict).toBe(
      'no live process hosts it, and payout runs only in one: start `statewright serve` on its store to run it; then: waiting for payout to report',
    );
    // Its child runs whenever the run is restored to take an event: nothing needs a host.
    expect((await explainRun(offline, 'party')).verdict).toMatch(
      /^nothing will move it without an outside event: WAVE_ADA, LEAVE; friend-ada runs beside it/,
    );
    await store.close();
  });
});
