/**
 * Hibernation (issue #18): a run with nothing to do and nothing running but durable timers is
 * dropped from memory and its lease released with its next deadline; its next event or its
 * deadline wakes it, invisibly: the same order, commit before acknowledge, idempotency, and its
 * actors restored as on recovery.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import type { RecoveringRun } from '../../machines/lifecycle.js';
import { ManualClock, type LogEntry, type Runtime, type RuntimeOptions } from '../../src/runtime/index.js';
import { CommitOutcomeUnknownError } from '../../src/stores/store-errors.js';
import { RunHeldError, type Store } from '../../src/stores/store.js';
import { until } from '../support/until.js';
import {
  jobHost,
  leaseStores,
  closedAfterEach,
  heldBack,
  Processes,
  storeWith,
  withResolvers,
} from './lease-fixtures.js';

const T0 = Date.UTC(2026, 10, 24, 8);
const TTL = 300;
const IDLE = 1_000;
const HORIZON = 5_000;

const keep = closedAfterEach();

describe.each(leaseStores)('hibernation on the $name store', ({ shared }) => {
  async function host(
    store: Store,
    ctx: { skip(note?: string): void },
    options: Omit<Partial<RuntimeOptions>, 'owner'> & {
      recovered?: RecoveringRun[];
      processes?: Processes;
      name?: string;
    } = {},
  ) {
    if (!store.leases) ctx.skip(`this ${store.kind} store has no leases yet`);
    const { recovered = [], processes = new Processes(), name = 'a', ...rest } = options;
    const clock = (rest.clock as ManualClock | undefined) ?? new ManualClock(T0);
    const rt = keep(
      await jobHost(processes, {
        store,
        owner: name,
        clock,
        ttlMs: TTL,
        recovered,
        hibernate: { afterIdleMs: IDLE, horizonMs: HORIZON },
        ...rest,
      }),
    );
    return { rt, clock };
  }
  const leaseOf = async (store: Store, runId: string) => (await store.load(runId))?.lease;
  /** `store` whose next read of a run runs a step of the test's after the store answered it, before the runtime hears the answer. */
  function pausedAfterRead(store: Store) {
    let step: (() => Promise<unknown>) | undefined;
    const load = async (runId: string) => {
      const read = await store.load(runId);
      const next = step;
      step = undefined;
      await next?.();
      return read;
    };
    return { store: storeWith(store, { load }), afterNextRead: (then: () => Promise<unknown>) => void (step = then) };
  }
  const asleep = (store: Store, runId: string) =>
    until(`${runId} to hibernate`, async () => (await leaseOf(store, runId))?.state === 'released');
  /** Jobs started, waiting for their deadline (FINISH), then idle long enough to be asleep in the store. */
  async function sleepingJobs(
    host: { rt: Runtime; clock: ManualClock },
    store: Store,
    ids: readonly string[],
    deadline = T0 + 600_000,
  ) {
    for (const id of ids) {
      await host.rt.start('job', { id, input: { deadline } });
      await host.rt.dispatch(id, { type: 'FINISH' });
    }
    host.clock.advance(IDLE);
    for (const id of ids) await asleep(store, id);
  }

  it('keeps the order of events across sleep and wake, a burst sent while it wakes included', async (ctx) => {
    const store = keep(await shared().open());
    const { rt, clock } = await host(store, ctx);
    await rt.start('job', { id: 'j', input: { deadline: T0 + 600_000 } });
    await rt.dispatch('j', { type: 'FINISH' });
    clock.advance(IDLE);
    await asleep(store, 'j');
    expect(await store.load('j')).toMatchObject({
      wakeAt: T0 + 600_000,
      lease: { holder: 'a', state: 'released', epoch: 1 },
    });

    const texts = Array.from({ length: 20 }, (_, i) => `n${i}`);
    for (const text of texts) rt.send('j', { type: 'NOTE', text });
    const last = await rt.dispatch('j', { type: 'NOTE', text: 'last' });
    // Acknowledged once committed: the store holds what the caller was told.
    expect(last).toMatchObject({ seq: 22, context: { notes: [...texts, 'last'] } });
    expect(await store.load('j')).toMatchObject({ seq: 22, lease: { holder: 'a', state: 'held', epoch: 2 } });
    expect((await rt.history('j')).map((e) => (e.event as { text?: string }).text ?? e.event.type)).toEqual([
      'FINISH',
      ...texts,
      'last',
    ]);

    // Asleep again once idle again, and woken again by the next event.
    clock.advance(IDLE);
    await asleep(store, 'j');
    expect(await rt.dispatch('j', { type: 'NOTE', text: 'again' })).toMatchObject({ seq: 23 });
    expect(await leaseOf(store, 'j')).toMatchObject({ state: 'held', epoch: 3 });
  });

  it('wakes a sleeping run for its deadline, which fires once, at its instant', async (ctx) => {
    const store = keep(await shared().open());
    const logs: LogEntry[] = [];
    const hosted = await host(store, ctx, { onLog: (e) => logs.push(e) });
    const { rt, clock } = hosted;
    const deadline = T0 + 60_000;
    await sleepingJobs(hosted, store, ['j'], deadline);

    // Within the horizon of its deadline, the sweep wakes it from the store's timer index.
    clock.set(deadline - HORIZON + 1_000);
    await until('the sweep to wake j', async () => (await leaseOf(store, 'j'))?.state === 'held');
    // Claimed in the store, then restored here: its timer is armed only then (the clock must not pass it before).
    await until('j to be restored, its timer armed', () =>
      logs.some((e) => e.runId === 'j' && e.message.startsWith('woken')),
    );
    clock.set(deadline - 1);
    await rt.flush();
    expect(await rt.getSnapshot('j')).toMatchObject({ state: 'waiting', seq: 1 });
    clock.set(deadline);
    await rt.flush();
    expect(await rt.getSnapshot('j')).toMatchObject({ state: 'expired', seq: 2 });
    const expiries = (await rt.history('j')).filter((e) => e.event.type === 'EXPIRE');
    expect(expiries).toMatchObject([{ at: deadline, actor: 'timer' }]);
    // Ended: nothing more to wake it for.
    expect((await store.load('j'))?.wakeAt).toBeUndefined();
  });

  it('never puts to sleep a run with a live worker; adopts the worker of a handed-over run woken by an event', async (ctx) => {
    const { open } = shared();
    const store = keep(await open());
    const processes = new Processes();
    const recovered: RecoveringRun[] = [];
    const first = await host(store, ctx, { processes, recovered, name: 'a' });
    await first.rt.start('job', { id: 'busy', input: { deadline: T0 + 600_000 } });
    await first.rt.start('job', { id: 'idle', input: { deadline: T0 + 600_000 } });
    await first.rt.dispatch('idle', { type: 'FINISH' });
    first.clock.advance(10 * IDLE);
    // The resting run sleeps; the one whose worker runs stays, however long it has had no event.
    await asleep(store, 'idle');
    expect(await leaseOf(store, 'busy')).toMatchObject({ holder: 'a', state: 'held' });
    await first.rt.close({ handOver: true });
    expect(await leaseOf(store, 'busy')).toMatchObject({ state: 'handedOver' });

    const second = await host(keep(await open()), ctx, {
      processes,
      recovered,
      name: 'b',
      recover: false,
      clock: first.clock,
    });
    expect(await second.rt.dispatch('busy', { type: 'NOTE', text: 'hello' })).toMatchObject({
      state: 'working',
      context: { notes: ['hello'] },
    });
    expect(recovered).toEqual([]);
    expect(processes.log).toEqual(['a spawn busy', 'a spawn idle', 'a end idle', 'b adopt busy']);
    // The sleeping one wakes for an event with no recovery rule: it was let go cleanly.
    expect(await second.rt.dispatch('idle', { type: 'NOTE', text: 'hi' })).toMatchObject({ state: 'waiting', seq: 2 });
    expect(recovered).toEqual([]);
  });

  it('wakes many sleeping runs for events sent at once, their claims sent together, each event applied once and in order', async (ctx) => {
    const store = keep(await shared().open());
    const hosted = await host(store, ctx);
    const { rt } = hosted;
    const leases = store.leases!;
    const claimRuns = leases.claimRuns?.bind(leases);
    if (!claimRuns) return ctx.skip(`the ${store.kind} store has no claimRuns: each run is claimed alone`);
    const ids = Array.from({ length: 12 }, (_, i) => `j${i}`);
    await sleepingJobs(hosted, store, ids);

    // Every claim the runtime sends from here, alone or together.
    const sent: string[][] = [];
    const claimRun = leases.claimRun.bind(leases);
    leases.claimRun = (runId, ...rest) => (sent.push([runId]), claimRun(runId, ...rest));
    leases.claimRuns = (runIds, ...rest) => (sent.push([...runIds]), claimRuns(runIds, ...rest));
    const woken = await Promise.all(
      ids.flatMap((id) => [
        rt.dispatch(id, { type: 'NOTE', text: `${id} first` }),
        rt.dispatch(id, { type: 'NOTE', text: `${id} second` }),
      ]),
    );

    expect(woken.map((s) => s.seq)).toEqual(ids.flatMap(() => [2, 3]));
    // The first wake, alone when it began, is read and claimed by its commit; the others' claims go together.
    expect(sent.flat().sort()).toEqual(ids.slice(1).sort());
    expect(sent.length).toBeLessThan(ids.length - 1);
    for (const id of ids) {
      // Epoch 2 from the wake's claim, or later where this host's own sweep took back a lease that ran out on a busy machine.
      const stored = await store.load(id);
      expect(stored).toMatchObject({ seq: 3, lease: { holder: 'a', state: 'held' } });
      expect(stored!.lease!.epoch).toBeGreaterThanOrEqual(2);
      expect((await rt.history(id)).map((e) => (e.event as { text?: string }).text ?? e.event.type)).toEqual([
        'FINISH',
        `${id} first`,
        `${id} second`,
      ]);
    }
  });

  it('does not hold back the wake of one run behind a claim of another that is slow to answer (a row lock left held)', async (ctx) => {
    const store = keep(await shared().open());
    // The read of 'first' is not answered until the test lets it go: while it is out, the wakes after it are claimed.
    const firstRead = heldBack(store, 'load');
    let holdFirst = false;
    const hosted = await host(
      storeWith(store, {
        load: (runId) => (holdFirst && runId === 'first' ? firstRead.store.load(runId) : store.load(runId)),
      }),
      ctx,
    );
    const { rt } = hosted;
    const leases = store.leases!;
    if (!leases.claimRuns) return ctx.skip(`the ${store.kind} store has no claimRuns: each run is claimed alone`);
    await sleepingJobs(hosted, store, ['first', 'stuck', 'free']);

    // The claim of 'stuck' is not answered until the test lets it go.
    const held = withResolvers();
    onTestFinished(held.resolve);
    onTestFinished(firstRead.letGo);
    const stuckAsked = withResolvers();
    const claimRun = leases.claimRun.bind(leases);
    leases.claimRun = async (runId, ...rest) => {
      if (runId === 'stuck') {
        stuckAsked.resolve();
        await held.promise;
      }
      return claimRun(runId, ...rest);
    };
    holdFirst = true;
    const first = rt.dispatch('first', { type: 'NOTE', text: 'read first' });
    await firstRead.started;
    const stuck = rt.dispatch('stuck', { type: 'NOTE', text: 'late' });
    await stuckAsked.promise;
    expect(await rt.dispatch('free', { type: 'NOTE', text: 'on time' })).toMatchObject({
      seq: 2,
      context: { notes: ['on time'] },
    });
    held.resolve();
    firstRead.letGo();
    expect(await stuck).toMatchObject({ seq: 2, context: { notes: ['late'] } });
    expect(await first).toMatchObject({ seq: 2, context: { notes: ['read first'] } });
  });

  it('wakes a lone sleeping run with one write: read, not claimed, its first commit takes the lease, which is renewed from then on', async (ctx) => {
    const store = keep(await shared().open());
    const hosted = await host(store, ctx);
    const { rt } = hosted;
    await sleepingJobs(hosted, store, ['j']);
    const leases = store.leases!;
    const claimed: string[] = [];
    const claimRun = leases.claimRun.bind(leases);
    leases.claimRun = (runId, ...rest) => (claimed.push(runId), claimRun(runId, ...rest));
    const claimRuns = leases.claimRuns?.bind(leases);
    if (claimRuns) leases.claimRuns = (runIds, ...rest) => (claimed.push(...runIds), claimRuns(runIds, ...rest));

    expect(await rt.dispatch('j', { type: 'NOTE', text: 'woken' })).toMatchObject({
      seq: 2,
      context: { notes: ['woken'] },
    });
    expect(claimed).toEqual([]);
    const woken = (await leaseOf(store, 'j'))!;
    expect(woken).toMatchObject({ holder: 'a', state: 'held', epoch: 2 });
    expect((await store.load('j'))!.owner).toMatchObject({ id: 'a' });
    // Held here from its commit on: the heartbeat renews it (a run only read would be left out and lost).
    await until('the lease of j to be renewed', async () => (await leaseOf(store, 'j'))!.renewedAt > woken.renewedAt);
    expect(await rt.dispatch('j', { type: 'NOTE', text: 'again' })).toMatchObject({ seq: 3 });
    expect(await leaseOf(store, 'j')).toMatchObject({ holder: 'a', state: 'held', epoch: 2 });
    expect(claimed).toEqual([]);
  });

  it('refuses an event with RunHeldError, writing nothing, when another host claims the run between its read and its commit', async (ctx) => {
    const { open } = shared();
    const store = keep(await open());
    const paused = pausedAfterRead(store);
    const a = await host(paused.store, ctx, { name: 'a' });
    await sleepingJobs(a, store, ['j']);
    // b's lease outlasts any stall of this process, so its refusal of a's next event is b's live lease, not a timing.
    const b = await host(keep(await open()), ctx, {
      name: 'b',
      recover: false,
      clock: a.clock,
      leases: { ttlMs: 60_000 },
    });

    paused.afterNextRead(() => b.rt.dispatch('j', { type: 'NOTE', text: 'by b' }));
    const refused = await a.rt.dispatch('j', { type: 'NOTE', text: 'by a' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RunHeldError);
    expect(refused).toMatchObject({ runId: 'j', lease: { holder: 'b', state: 'held', epoch: 2 } });
    expect(await leaseOf(store, 'j')).toMatchObject({ holder: 'b', state: 'held', epoch: 2 });
    expect((await store.history('j')).map((e) => (e.event as { text?: string }).text ?? e.event.type)).toEqual([
      'FINISH',
      'by b',
    ]);
    // Not hosted by a: its next event is refused by b's lease too, and b's copy goes on.
    await expect(a.rt.dispatch('j', { type: 'NOTE', text: 'by a again' })).rejects.toBeInstanceOf(RunHeldError);
    expect(await b.rt.dispatch('j', { type: 'NOTE', text: 'b again' })).toMatchObject({
      seq: 3,
      context: { notes: ['by b', 'b again'] },
    });
  });

  it('holds a run whose waking commit was applied though its answer was lost (outcome unknown): read back, it is renewed and stepped as held', async (ctx) => {
    const store = keep(await shared().open());
    let loseNextAnswer = false;
    const commit: Store['commit'] = async (commits) => {
      await store.commit(commits);
      if (!loseNextAnswer) return;
      loseNextAnswer = false;
      throw new CommitOutcomeUnknownError(
        'test',
        store.kind,
        '42',
        commits.map((c) => ({ runId: c.run.runId, seq: c.run.seq })),
        'the reply was lost',
      );
    };
    const hosted = await host(storeWith(store, { commit }), ctx);
    const { rt } = hosted;
    await sleepingJobs(hosted, store, ['j']);

    loseNextAnswer = true;
    await expect(rt.dispatch('j', { type: 'NOTE', text: 'landed' })).rejects.toBeInstanceOf(CommitOutcomeUnknownError);
    const landed = (await leaseOf(store, 'j'))!;
    expect(landed).toMatchObject({ holder: 'a', state: 'held', epoch: 2 });
    // Read back, the run is known to be held here: the heartbeat keeps it with no further commit.
    await until('the lease of j to be renewed', async () => (await leaseOf(store, 'j'))!.renewedAt > landed.renewedAt);
    // And the next event extends what the store holds.
    expect(await rt.dispatch('j', { type: 'NOTE', text: 'next' })).toMatchObject({
      seq: 3,
      context: { notes: ['landed', 'next'] },
    });
    expect(await leaseOf(store, 'j')).toMatchObject({ holder: 'a', state: 'held', epoch: 2 });
  });

  it("commits an event under this host's own sweep's claim when the sweep takes the run between the event's read and its commit", async (ctx) => {
    const store = keep(await shared().open());
    const paused = pausedAfterRead(store);
    const hosted = await host(paused.store, ctx);
    const { rt, clock } = hosted;
    const deadline = T0 + 60_000;
    await sleepingJobs(hosted, store, ['j'], deadline);

    // Its deadline near, the sweep claims it (epoch 2) after the event's read.
    paused.afterNextRead(async () => {
      clock.set(deadline - HORIZON + 1_000);
      await until('the sweep to claim j', async () => (await leaseOf(store, 'j'))?.state === 'held');
    });
    expect(await rt.dispatch('j', { type: 'NOTE', text: 'x' })).toMatchObject({ seq: 2, context: { notes: ['x'] } });
    expect(await leaseOf(store, 'j')).toMatchObject({ holder: 'a', state: 'held', epoch: 2 });
    // One copy hosted: its deadline fires once, at its instant.
    clock.set(deadline);
    await rt.flush();
    expect(await rt.getSnapshot('j')).toMatchObject({ state: 'expired', seq: 3 });
    expect((await rt.history('j')).map((e) => e.event.type)).toEqual(['FINISH', 'NOTE', 'EXPIRE']);
  });

  it("keeps hosting a run an event woke when the sweep's older claim of it is answered after", async (ctx) => {
    const store = keep(await shared().open());
    const leases = store.leases!;
    // The sweep's answer is held back once it holds 'j'; it is told of each sweep after that.
    const sweepHeld = withResolvers();
    onTestFinished(sweepHeld.resolve);
    let holding = false;
    let sweepsAfter = 0;
    const claimDue = leases.claimDue.bind(leases);
    leases.claimDue = async (...args) => {
      const claims = await claimDue(...args);
      if (holding) sweepsAfter++;
      if (claims.some((c) => c.run.runId === 'j')) {
        holding = true;
        await sweepHeld.promise;
      }
      return claims;
    };
    const hosted = await host(store, ctx);
    const { rt, clock } = hosted;
    const deadline = T0 + 60_000;
    await sleepingJobs(hosted, store, ['j'], deadline);

    // Its deadline near, the sweep claims it (epoch 2), but its answer is held back; an event then
    // claims it again (epoch 3, this host's own lease) and is applied and committed.
    clock.set(deadline - HORIZON + 1_000);
    await until('the sweep to claim j', async () => (await leaseOf(store, 'j'))?.epoch === 2);
    expect(await rt.dispatch('j', { type: 'NOTE', text: 'x' })).toMatchObject({ seq: 2, context: { notes: ['x'] } });
    expect(await leaseOf(store, 'j')).toMatchObject({ holder: 'a', state: 'held', epoch: 3 });

    // The sweep's claim, older, is answered now: it changes nothing here, and a later sweep proves it was dealt with.
    sweepHeld.resolve();
    await until('a later sweep', () => sweepsAfter > 0);
    expect(await rt.dispatch('j', { type: 'NOTE', text: 'y' })).toMatchObject({
      seq: 3,
      context: { notes: ['x', 'y'] },
    });
    expect(await leaseOf(store, 'j')).toMatchObject({ holder: 'a', state: 'held', epoch: 3 });
    expect((await rt.history('j')).map((e) => (e.event as { text?: string }).text ?? e.event.type)).toEqual([
      'FINISH',
      'x',
      'y',
    ]);
  });

  it('answers a repeated idempotency key across a sleep with the first result, applying nothing', async (ctx) => {
    const store = keep(await shared().open());
    const { rt, clock } = await host(store, ctx);
    await rt.start('job', { id: 'j', input: { deadline: T0 + 600_000 } });
    await rt.dispatch('j', { type: 'FINISH' });
    const first = await rt.dispatch('j', { type: 'NOTE', text: 'once' }, { idempotencyKey: 'note-1' });
    clock.advance(IDLE);
    await asleep(store, 'j');
    const repeat = await rt.dispatch('j', { type: 'NOTE', text: 'once' }, { idempotencyKey: 'note-1' });
    expect(repeat).toEqual(first);
    expect((await rt.history('j')).map((e) => e.event.type)).toEqual(['FINISH', 'NOTE']);
    expect(await rt.getSnapshot('j')).toMatchObject({ seq: 2, context: { notes: ['once'] } });
  });
});
