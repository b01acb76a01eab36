/**
 * Several runtimes on one store with leases (issue #17, runtime side): a host cut off past its
 * lease loses its runs to another host's sweep, which applies the recovery rule once; the cut-off
 * host's late commits are refused and it ends what it ran; a live holder's run is refused to
 * others until it lets go; a graceful stop hands the runs over for adoption.
 */
import { describe, expect, it } from 'vitest';
import { assign, fromCallback, setup } from 'xstate';
import type { RecoveringRun } from '../../machines/lifecycle.js';
import { createRuntime, ManualClock, type LogEntry } from '../../src/runtime/index.js';
import { until } from '../support/until.js';
import {
  cuttable,
  heldBack,
  jobHost,
  jobLifecycle,
  leaseStores,
  closedAfterEach,
  Processes,
  storeWith,
  withResolvers,
} from './lease-fixtures.js';

const T0 = Date.UTC(2026, 10, 24, 8);
const TTL = 300;

const keep = closedAfterEach();

describe.each(leaseStores)('leases on the $name store', ({ shared }) => {
  /** The test's store (skipped where the store has no leases), a way to open it again for another host, a clock and pretend processes. */
  const setUp = async (ctx: { skip(note?: string): void }) => {
    const { open } = shared();
    const base = keep(await open());
    if (!base.leases) ctx.skip(`this ${base.kind} store has no leases yet`);
    return { open, base, clock: new ManualClock(T0), processes: new Processes() };
  };

  it('takes over the runs of a host cut off past its lease: the recovery rule once, the late commit refused, the worker ended by the new holder, the timer fired once', async (ctx) => {
    const { open, base, clock, processes } = await setUp(ctx);
    const recoveredByA: RecoveringRun[] = [];
    const recoveredByB: RecoveringRun[] = [];
    const link = cuttable(base);
    const logsA: LogEntry[] = [];
    // 'a' is on another machine: only its lease running out tells that it is gone.
    const a = keep(
      await jobHost(processes, {
        store: link.store,
        owner: { id: 'a', host: 'elsewhere' },
        clock,
        ttlMs: TTL,
        recovered: recoveredByA,
        hibernate: false,
        onLog: (e) => logsA.push(e),
      }),
    );
    await a.start('job', { id: 'working', input: { deadline: T0 + 60_000 } });
    const waiting = await a.start('job', { id: 'waiting', input: { deadline: T0 + 60_000 } });
    await a.dispatch(waiting.runId, { type: 'FINISH' });
    await a.flush();
    expect(processes.log).toEqual(['a spawn working', 'a spawn waiting', 'a end waiting']);
    expect((await base.load('working'))?.lease).toMatchObject({ holder: 'a', state: 'held', epoch: 1 });
    expect((await base.load('waiting'))?.wakeAt).toBe(T0 + 60_000);

    link.cut();
    const b = keep(
      await jobHost(processes, {
        store: keep(await open()),
        owner: 'b',
        clock,
        ttlMs: TTL,
        recovered: recoveredByB,
        hibernate: false,
      }),
    );
    // Within the TTL plus a sweep, 'b' holds both: 'a' has not renewed.
    for (const runId of ['working', 'waiting'])
      await until(`'b' to take over ${runId}`, async () => (await base.load(runId))?.lease?.holder === 'b');
    await b.flush();
    expect(recoveredByB.map((r) => [r.runId, r.previousOwner?.id, r.previousOwner?.alive])).toEqual([
      ['working', 'a', false],
      ['waiting', 'a', false],
    ]);
    expect(await b.getSnapshot('working')).toMatchObject({ state: 'crashed', status: 'done' });
    expect((await base.load('waiting'))?.lease).toMatchObject({ holder: 'b', state: 'held', epoch: 2 });

    // 'a' is still running and still thinks it holds them: its late commit is refused.
    await expect(a.dispatch('waiting', { type: 'NOTE', text: 'late' })).rejects.toMatchObject({
      name: 'LeaseLostError',
      lost: [{ runId: 'waiting', holder: 'a', epoch: 1, stored: { holder: 'b', epoch: 2 } }],
    });
    // It stopped hosting the run: the next event is a claim, refused while 'b' holds it.
    link.mend();
    await expect(a.dispatch('waiting', { type: 'NOTE', text: 'later' })).rejects.toMatchObject({
      name: 'RunHeldError',
      lease: { holder: 'b' },
    });
    expect(
      logsA.some((e) => e.runId === 'waiting' && e.level === 'warn' && e.message.includes('no longer hosted here')),
    ).toBe(true);

    // 'b' failed 'working' as crashed and ended the worker 'a' left; told it lost the run, 'a' lets go of it, ending nothing.
    await until("'b' to end the worker of the run it failed", () => processes.log.includes('b end working'));
    await until("'a' to hear it lost 'working'", () =>
      logsA.some((e) => e.runId === 'working' && e.message.includes('no longer hosted here')),
    );
    expect(processes.log.filter((l) => l.startsWith('a end working'))).toEqual([]);

    // The deadline is reached: only 'b' fires it, once.
    clock.set(T0 + 60_000);
    await b.flush();
    await a.flush();
    expect(await b.getSnapshot('waiting')).toMatchObject({ state: 'expired', seq: 2 });
    const history = await b.history('waiting');
    expect(history.filter((e) => e.event.type === 'EXPIRE')).toHaveLength(1);
    expect(history.some((e) => e.event.type === 'NOTE')).toBe(false);
    expect(recoveredByB).toHaveLength(2);
    expect(recoveredByA).toHaveLength(0);
  });

  it('stops hosting a run its renewal found lost, even while it reads who holds it now: an event meanwhile is refused, its actors cause nothing, nothing is written', async (ctx) => {
    const { base } = await setUp(ctx);
    // The read that names the new holder after a lost renewal waits until the test lets it go.
    const slowRead = heldBack(base, 'load');
    // An actor that reports at every start, as an agent reports its spawn.
    const pinging = setup({
      types: { context: {} as { pings: number }, events: {} as { type: 'PING' } | { type: 'NOTE' } },
      actors: { pinger: fromCallback(({ sendBack }) => sendBack({ type: 'PING' })) },
    }).createMachine({
      id: 'pinging',
      context: { pings: 0 },
      invoke: { src: 'pinger' },
      on: { PING: { actions: assign({ pings: ({ context }) => context.pings + 1 }) }, NOTE: {} },
    });
    const refusals: string[] = [];
    const logs: LogEntry[] = [];
    const a = keep(
      await createRuntime({
        store: slowRead.store,
        machines: { pinging: { machine: pinging, version: 1, summary: 'reports at every start' } },
        owner: 'a',
        leases: { ttlMs: TTL },
        hibernate: false,
        onError: (e) => refusals.push(`${e.event.type}: ${e.error.name}`),
        onLog: (e) => logs.push(e),
      }),
    );
    await a.start('pinging', { id: 'run' });
    // Its first ping is an event of its own (seq 1), as what any actor says is; a restart would ping again.
    await a.flush();
    expect(await a.getSnapshot('run')).toMatchObject({ seq: 1, context: { pings: 1 } });
    // Another host takes the run (epoch 2): 'a' hears of it at its next renewal, then reads who holds it.
    await base.leases!.claimRun(
      'run',
      { id: 'b', pid: 1, pidStart: 'b', host: 'elsewhere' },
      { now: Date.now(), ttlMs: 60_000, takeFrom: ['a'] },
    );
    await slowRead.started;
    await expect(a.dispatch('run', { type: 'NOTE' })).rejects.toMatchObject({ name: 'LeaseLostError' });
    slowRead.letGo();
    await until("'a' to say it no longer hosts the run", () =>
      logs.some((e) => e.runId === 'run' && e.message.includes('no longer hosted here')),
    );
    // Its actor started again would ping, and that ping be refused (chaos-netns.test.ts caught a
    // session doing so in a loop, spawning its agent again at every refusal).
    expect(refusals).toEqual([]);
    expect((await base.history('run')).map((step) => step.event.type)).toEqual(['PING']);
    expect((await base.load('run'))?.lease).toMatchObject({ holder: 'b', epoch: 2 });
  });

  it('refuses an event whose batch was being applied when its renewal found the run lost with LeaseLostError, not as an event the stopped run takes no more', async (ctx) => {
    const { base } = await setUp(ctx);
    // The idempotency lookup of the next batch waits until the test lets it go.
    const slowLookup = heldBack(base, 'findIdempotent');
    const noting = setup({ types: { events: {} as { type: 'NOTE' } } }).createMachine({
      id: 'noting',
      on: { NOTE: {} },
    });
    const logs: LogEntry[] = [];
    const a = keep(
      await createRuntime({
        store: slowLookup.store,
        machines: { noting: { machine: noting, version: 1, summary: 'takes notes' } },
        owner: 'a',
        leases: { ttlMs: TTL },
        hibernate: false,
        onLog: (e) => logs.push(e),
      }),
    );
    await a.start('noting', { id: 'run' });
    const note = a.dispatch('run', { type: 'NOTE' }, { idempotencyKey: 'note-1' });
    note.catch(() => {});
    await slowLookup.started;
    // Another host takes the run; 'a' hears of it at its next renewal and stops the run.
    await base.leases!.claimRun(
      'run',
      { id: 'b', pid: 1, pidStart: 'b', host: 'elsewhere' },
      { now: Date.now(), ttlMs: 60_000, takeFrom: ['a'] },
    );
    await until("'a' to say it no longer hosts the run", () =>
      logs.some((e) => e.runId === 'run' && e.message.includes('no longer hosted here')),
    );
    slowLookup.letGo();
    await expect(note).rejects.toMatchObject({ name: 'LeaseLostError' });
    expect(await base.history('run')).toEqual([]);
    expect(logs.filter((e) => e.runId === 'run' && e.message.includes('no longer hosted here'))).toHaveLength(1);
  });

  it("hosts a run its sweep claimed while an event's own claim of it was being refused: the recovery rule runs, the run is in memory", async (ctx) => {
    const { base, clock, processes } = await setUp(ctx);
    const recoveredByB: RecoveringRun[] = [];
    const link = cuttable(base);
    // 'a' (on another machine) hosts the run, then is cut off: its lease runs out after the TTL.
    const a = keep(
      await jobHost(processes, {
        store: link.store,
        owner: { id: 'a', host: 'elsewhere' },
        clock,
        ttlMs: TTL,
        hibernate: false,
      }),
    );
    await a.start('job', { id: 'job', input: { deadline: T0 + 60_000 } });
    await a.flush();
    link.cut();
    // An event's claim in 'b' is refused ('a' still holds the run), but its refusal is held back
    // until b's sweep has claimed the run (the lease ran out): the load fails after the claim.
    const refusalHeld = withResolvers();
    const leases = base.leases!;
    const slowRefusal = storeWith(base, {
      leases: {
        claimRun: async (...args) => {
          try {
            return await leases.claimRun(...args);
          } catch (error) {
            await refusalHeld.promise;
            throw error;
          }
        },
      },
    });
    const logsB: LogEntry[] = [];
    const b = keep(
      await jobHost(processes, {
        store: slowRefusal,
        owner: 'b',
        clock,
        ttlMs: TTL,
        recovered: recoveredByB,
        hibernate: false,
        onLog: (e) => logsB.push(e),
      }),
    );
    const event = b.dispatch('job', { type: 'FINISH' });
    event.catch(() => {});
    await until("'b' to claim the run in its sweep", async () => (await base.load('job'))?.lease?.holder === 'b');
    refusalHeld.resolve();
    await expect(event).rejects.toMatchObject({ name: 'RunHeldError' });
    // The claim is not left held with nothing hosted: 'b' hosts the run, after its recovery rule.
    await until("'b' to host the run it claimed", () =>
      logsB.some((e) => e.runId === 'job' && e.message.includes("taken over from 'a'")),
    );
    await b.flush();
    expect(recoveredByB.map((r) => r.runId)).toEqual(['job']);
    expect(await b.getSnapshot('job')).toMatchObject({ state: 'crashed', status: 'done' });
  });

  it('keeps hosting a run its own sweep claimed back (its lease ran out) while a renewal sent before that claim found it lost: held and renewed here, its timer fires', async (ctx) => {
    const { base, clock, processes } = await setUp(ctx);
    const recovered: RecoveringRun[] = [];
    const leases = base.leases!;
    // The read that names the new holder after a lost renewal waits until the test lets it go.
    const slowRead = heldBack(base, 'load');
    // While `renewalsHeld` is set, a renewal waits before it reaches the store: the lease runs out.
    let renewalsHeld: ReturnType<typeof withResolvers> | undefined;
    const renewed: Array<{ runId: string; epoch: number }> = [];
    // The sweep's claim of the run is made in the store; its answer waits until the test lets it go.
    const claimed = withResolvers();
    const claimAnswered = withResolvers();
    let answered = false;
    let sweepsAfter = 0;
    const store = storeWith(slowRead.store, {
      leases: {
        claimDue: async (...args) => {
          if (answered) sweepsAfter++;
          const claims = await leases.claimDue(...args);
          if (claims.some((c) => c.run.runId === 'job')) {
            claimed.resolve();
            await claimAnswered.promise;
            answered = true;
          }
          return claims;
        },
        renew: async (holder, batch, options) => {
          renewed.push(...batch);
          await renewalsHeld?.promise;
          return leases.renew(holder, batch, options);
        },
      },
    });
    const logs: LogEntry[] = [];
    const a = keep(
      await jobHost(processes, {
        store,
        owner: 'a',
        clock,
        ttlMs: TTL,
        recovered,
        hibernate: false,
        onLog: (e) => logs.push(e),
      }),
    );
    await a.start('job', { id: 'job', input: { deadline: T0 + 60_000 } });
    await a.flush();
    const renewals = (renewalsHeld = withResolvers());
    // Its lease runs out; its own sweep claims the run back (epoch 2), the answer still on the way.
    await claimed.promise;
    expect((await base.load('job'))?.lease).toMatchObject({ holder: 'a', state: 'held', epoch: 2 });
    // The renewal sent before that claim reaches the store after it: the run at epoch 1 is lost.
    renewalsHeld = undefined;
    renewals.resolve();
    await slowRead.started;
    // The claim's answer comes while the renewal reads who holds the run now: 'a' holds it again, at epoch 2.
    claimAnswered.resolve();
    await until('the sweep to have handled its claim', () => sweepsAfter > 0);
    slowRead.letGo();
    await until("'a' to renew the run at epoch 2", () => renewed.some((l) => l.runId === 'job' && l.epoch === 2));
    expect((await base.load('job'))?.lease).toMatchObject({ holder: 'a', state: 'held', epoch: 2 });
    // Held and renewed here, so it must be hosted here: no other host's sweep would take it.
    expect(logs.filter((e) => e.runId === 'job' && e.message.includes('no longer hosted here'))).toEqual([]);
    expect(processes.log).toEqual(['a spawn job']);
    clock.set(T0 + 60_000);
    await a.flush();
    expect((await base.history('job')).map((e) => e.event.type)).toEqual(['EXPIRE']);
    expect(await a.getSnapshot('job')).toMatchObject({ state: 'expired', seq: 1 });
    expect(recovered).toEqual([]);
  });

  it('keeps the lease of a run it took back from another host while its own older commit was out: that commit is refused, the new copy commits on', async (ctx) => {
    const { open, base, clock, processes } = await setUp(ctx);
    // While its gate is set, what a's host sends waits before it reaches the store: its renewals
    // and sweeps (so its lease runs out, and only 'b' takes the run), and its commits.
    let leaseCalls: ReturnType<typeof withResolvers> | undefined;
    let commits: ReturnType<typeof withResolvers> | undefined;
    const commitOut = withResolvers();
    const leases = base.leases!;
    const gated = storeWith(base, {
      leases: {
        renew: async (...args) => (await leaseCalls?.promise, leases.renew(...args)),
        claimDue: async (...args) => (await leaseCalls?.promise, leases.claimDue(...args)),
      },
      commit: async (batch) => {
        if (commits) commitOut.resolve();
        await commits?.promise;
        return base.commit(batch);
      },
    });
    const logsA: LogEntry[] = [];
    // 'a' is on another machine: only its lease running out lets 'b' take the run, and b's in turn 'a'.
    const a = keep(
      await jobHost(processes, {
        store: gated,
        owner: { id: 'a', host: 'elsewhere' },
        clock,
        ttlMs: TTL,
        hibernate: false,
        onLog: (e) => logsA.push(e),
      }),
    );
    await a.start('job', { id: 'job', input: { deadline: T0 + 60_000 } });
    await a.dispatch('job', { type: 'FINISH' });
    leaseCalls = withResolvers();
    commits = withResolvers();
    try {
      // a's commit of a note, under its lease at epoch 1, is on its way when the lease runs out.
      const late = a.dispatch('job', { type: 'NOTE', text: 'late' });
      late.catch(() => {});
      await commitOut.promise;
      // 'b' takes the run (epoch 2), commits to it and closes; its lease runs out in turn.
      const b = await jobHost(processes, {
        store: keep(await open()),
        owner: 'b',
        clock,
        ttlMs: TTL,
        hibernate: false,
      });
      await until("'b' to take the run over", async () => (await base.load('job'))?.lease?.holder === 'b');
      await b.dispatch('job', { type: 'NOTE', text: 'from b' });
      await b.close();
      // a hears it lost the run (its old copy is stopped), and its sweep takes the run back from 'b' (epoch 3).
      leaseCalls.resolve();
      leaseCalls = undefined;
      await until("'a' to take the run back from 'b'", () =>
        logsA.some((e) => e.runId === 'job' && e.message.includes("taken over from 'b'")),
      );
      expect((await base.load('job'))?.lease).toMatchObject({ holder: 'a', state: 'held', epoch: 3 });
      // The old copy's commit, fenced by epoch 1, is refused; the new copy keeps its lease and commits.
      commits.resolve();
      commits = undefined;
      await expect(late).rejects.toMatchObject({ name: 'LeaseLostError' });
      expect(await a.dispatch('job', { type: 'NOTE', text: 'after' })).toMatchObject({
        seq: 3,
        context: { notes: ['from b', 'after'] },
      });
      expect((await base.history('job')).map((e) => (e.event.type === 'NOTE' ? e.event.text : e.event.type))).toEqual([
        'FINISH',
        'from b',
        'after',
      ]);
      expect((await base.load('job'))?.lease).toMatchObject({ holder: 'a', epoch: 3 });
    } finally {
      leaseCalls?.resolve();
      commits?.resolve();
    }
  });

  it('refuses to claim a run a live host holds, naming it, and takes it once released', async (ctx) => {
    const { open, base, clock, processes } = await setUp(ctx);
    const a = keep(await jobHost(processes, { store: base, owner: 'a', clock, ttlMs: TTL }));
    const b = keep(
      await jobHost(processes, { store: keep(await open()), owner: 'b', clock, ttlMs: TTL, recover: false }),
    );
    await a.start('job', { id: 'j', input: { deadline: T0 + 60_000 } });
    await a.dispatch('j', { type: 'FINISH' });
    const held = b.dispatch('j', { type: 'NOTE', text: 'from b' });
    await expect(held).rejects.toMatchObject({
      name: 'RunHeldError',
      runId: 'j',
      lease: { holder: 'a', state: 'held', epoch: 1 },
    });
    await expect(held).rejects.toThrow(/hosted by 'a'.*send its events to that host/);
    await a.unload('j');
    expect(await b.dispatch('j', { type: 'NOTE', text: 'from b' })).toMatchObject({
      seq: 2,
      context: { notes: ['from b'] },
    });
    expect((await base.load('j'))?.lease).toMatchObject({ holder: 'b', state: 'held', epoch: 2 });
    await expect(a.dispatch('j', { type: 'NOTE', text: 'from a' })).rejects.toMatchObject({
      name: 'RunHeldError',
      lease: { holder: 'b' },
    });
  });

  it('hands its runs over on a graceful stop: the next host adopts the worker and skips the recovery rule', async (ctx) => {
    const { open, base, clock, processes } = await setUp(ctx);
    const recovered: RecoveringRun[] = [];
    const a = await jobHost(processes, { store: base, owner: 'a', clock, ttlMs: TTL, recovered });
    await a.start('job', { id: 'j', input: { deadline: T0 + 60_000 } });
    await a.close({ handOver: true });
    expect((await base.load('j'))?.lease).toMatchObject({ holder: 'a', state: 'handedOver', epoch: 1 });
    const b = keep(await jobHost(processes, { store: keep(await open()), owner: 'b', clock, ttlMs: TTL, recovered }));
    await b.flush();
    expect(b.restoredAtStart).toEqual([{ runId: 'j', machine: 'job', adopted: true }]);
    expect(recovered).toEqual([]);
    expect(processes.log).toEqual(['a spawn j', 'b adopt j']);
    expect(await b.getSnapshot('j')).toMatchObject({ state: 'working' });
  });

  it('closed without hand-over, leaves its runs for the next host to recover: the worker was ended', async (ctx) => {
    const { open, base, clock, processes } = await setUp(ctx);
    const recovered: RecoveringRun[] = [];
    const a = await jobHost(processes, { store: base, owner: 'a', clock, ttlMs: 60_000, recovered });
    await a.start('job', { id: 'j', input: { deadline: T0 + 60_000 } });
    await a.close();
    expect((await base.load('j'))?.lease).toMatchObject({ holder: 'a', state: 'held', epoch: 1 });
    // Taken at once, not after the minute-long TTL: the lease was let run out.
    const b = keep(
      await jobHost(processes, { store: keep(await open()), owner: 'b', clock, ttlMs: 60_000, recovered }),
    );
    await b.flush();
    expect(recovered.map((r) => [r.runId, r.previousOwner?.id])).toEqual([['j', 'a']]);
    expect(processes.log).toEqual(['a spawn j', 'a end j']);
    expect(await b.getSnapshot('j')).toMatchObject({ state: 'crashed' });
  });

  it('takes at once the runs of a runtime of this process that is gone, and never those of a live one', async (ctx) => {
    const { open, base, clock } = await setUp(ctx);
    const recovered: RecoveringRun[] = [];
    const live = keep(await jobHost(new Processes(), { store: base, owner: 'live', clock, ttlMs: 60_000, recovered }));
    await live.start('job', { id: 'kept', input: { deadline: T0 + 60_000 } });
    // A process of this machine that has exited (a pid no process has): its holder is dead, whatever its lease says.
    const gone = await jobHost(new Processes(), {
      store: base,
      owner: { id: 'gone', pid: 2 ** 22 + 7, pidStart: 'gone' },
      clock,
      ttlMs: 60_000,
      recover: false,
    });
    await gone.start('job', { id: 'left', input: { deadline: T0 + 60_000 } });
    const next = keep(
      await jobHost(new Processes(), { store: keep(await open()), owner: 'next', clock, ttlMs: 60_000, recovered }),
    );
    await next.flush();
    expect(recovered.map((r) => [r.runId, r.previousOwner?.id])).toEqual([['left', 'gone']]);
    expect((await base.load('kept'))?.lease).toMatchObject({ holder: 'live', epoch: 1 });
    expect((await base.load('left'))?.lease).toMatchObject({ holder: 'next', epoch: 2 });
  });
});

describe('lease options', () => {
  it('refuses a lease TTL that is not a whole number of milliseconds', async () => {
    const { memoryStore } = await import('../../src/stores/index.js');
    await expect(
      createRuntime({ store: memoryStore(), machines: { job: jobLifecycle() }, leases: { ttlMs: 0.5 } }),
    ).rejects.toThrow(/lease 'ttlMs': expected a whole number of milliseconds, 4 or more/);
    await expect(
      createRuntime({ store: memoryStore(), machines: { job: jobLifecycle() }, hibernate: { afterIdleMs: -1 } }),
    ).rejects.toThrow(/hibernate 'afterIdleMs'/);
  });
});
