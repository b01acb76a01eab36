/**
 * `explainRun` on a store with leases (SQLite), leases written through the store's own API: the
 * host lease, the wake time, and a verdict that says who hosts the run or who will, as they are
 * said where several hosts share the store (or with `--verbose`).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { explainRun, explanationText } from '../../src/explain/index.js';
import { thisHost } from '../../src/os/process-identity.js';
import { createRuntime, ManualClock } from '../../src/runtime/index.js';
import { jsonFileStore } from '../../src/stores/json-file/json-file-store.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import type { OwnerInfo, Store, StoreLeases } from '../../src/stores/store.js';
import { testDir } from '../stores/temp-dir.js';

const T0 = Date.UTC(2026, 0, 1, 9);
const iso = (ms: number) => new Date(ms).toISOString();
const elsewhere = (id: string): OwnerInfo => ({ id, pid: 4242, pidStart: '1', host: 'another-machine' });

/** A store with one execution run `job-1`, started by a runtime that closed (its lease, epoch 1, let run out still held), and its leases. */
async function storeWithRun(): Promise<{
  store: Store;
  leases: StoreLeases;
  explain: () => ReturnType<typeof explainRun>;
}> {
  const store = sqliteStore(join(testDir('explain-leases'), 'state.db'));
  const clock = new ManualClock(T0);
  const runtime = await createRuntime({
    store,
    machines: lifecycles,
    clock,
    recover: false,
    owner: { id: 'first', pid: 2 ** 22 + 17, pidStart: 'never' },
  });
  await runtime.start('execution', { id: 'job-1' });
  await runtime.close();
  // Spoken of as where several hosts share the store (status-one-host.test.ts: one host says none of it).
  return {
    store,
    leases: store.leases!,
    explain: () => explainRun({ store, machines: lifecycles, clock }, 'job-1', { verbose: true }),
  };
}

describe('explain on a store with leases', () => {
  it('a run another live host holds: the holder, epoch, expiry and heartbeat, and that its events go there', async () => {
    const { store, leases, explain } = await storeWithRun();
    const now = Date.now();
    await leases.claimRun('job-1', elsewhere('b'), { now, ttlMs: 3_600_000 });
    const e = await explain();
    expect(e.hostLease).toMatchObject({
      holder: 'b',
      state: 'held',
      epoch: 2,
      expiresAt: now + 3_600_000,
      renewedAt: now,
      expired: false,
    });
    expect(e.hostLease!.heartbeatAgeMs).toBeGreaterThanOrEqual(0);
    expect(e.verdict).toMatch(
      /^hosted by the live host 'b' \(epoch 2, last heartbeat (\d+ ms|\d+\.\d s) ago; send its events there\): nothing will move it without an outside event: /,
    );
    expect(explanationText(e)).toMatch(
      new RegExp(
        `\\nhost: 'b' holds it at epoch 2, until ${iso(now + 3_600_000).replace(/\./g, '\\.')} \\(last heartbeat (\\d+ ms|\\d+\\.\\d s) ago, at ${iso(now).replace(/\./g, '\\.')}\\)\\n`,
      ),
    );
    await store.close();
  });

  it('a run whose host stopped renewing: expired, and taken over at the next sweep of any host', async () => {
    const { store, leases, explain } = await storeWithRun();
    // Claimed by 'a', whose last renewal was 30 s ago for 10 s.
    await leases.claimRun('job-1', elsewhere('a'), { now: Date.now(), ttlMs: 10_000 });
    const then = Date.now() - 30_000;
    expect(await leases.renew('a', [{ runId: 'job-1', epoch: 2 }], { now: then, ttlMs: 10_000 })).toEqual([]);
    const e = await explain();
    expect(e.hostLease).toMatchObject({
      holder: 'a',
      state: 'held',
      epoch: 2,
      expiresAt: then + 10_000,
      expired: true,
    });
    expect(e.hostLease!.heartbeatAgeMs).toBeGreaterThanOrEqual(30_000);
    expect(e.verdict).toMatch(
      new RegExp(
        `^its host 'a' stopped renewing its lease \\(expired at ${iso(then + 10_000).replace(/\./g, '\\.')}, last heartbeat \\d\\d\\.\\d s ago\\): taken over at the next sweep of any host, which applies its recovery rule; then: `,
      ),
    );
    expect(explanationText(e)).toMatch(/\nhost: 'a' holds it at epoch 2, expired at /);
    // Taken over: the new holder at the next epoch, and the explanation follows.
    const claim = await leases.claimDue(elsewhere('c'), { now: Date.now(), dueBy: T0, ttlMs: 3_600_000, limit: 10 });
    expect(claim.map((c) => [c.run.runId, c.previous?.holder, c.run.lease?.epoch])).toEqual([['job-1', 'a', 3]]);
    expect((await explain()).verdict).toMatch(/^hosted by the live host 'c' \(epoch 3, /);
    await store.close();
  });

  it('a run held by a process of this machine that ended: taken at the next sweep here, or by any host at expiry', async () => {
    const { store, leases, explain } = await storeWithRun();
    const gone: OwnerInfo = {
      id: 'local-gone',
      pid: spawnSync(process.execPath, ['-e', '']).pid!,
      pidStart: 'gone',
      host: thisHost(),
    };
    const now = Date.now();
    await leases.claimRun('job-1', gone, { now, ttlMs: 3_600_000 });
    const e = await explain();
    expect(e.owner).toMatchObject({ id: 'local-gone', alive: false });
    expect(e.verdict).toMatch(
      new RegExp(
        `^its host 'local-gone' is gone \\(its process on this machine ended\\): taken over at the next sweep of a host on this machine, or of any host once its lease runs out at ${iso(now + 3_600_000).replace(/\./g, '\\.')}; then: `,
      ),
    );
    await store.close();
  });

  it('a run asleep: released, with the deadline that wakes it, or only its next event', async () => {
    const { store, leases, explain } = await storeWithRun();
    const claim = await leases.claimRun('job-1', elsewhere('a'), { now: Date.now(), ttlMs: 10_000 });
    expect(claim!.run.lease!.epoch).toBe(2);
    await leases.release('a', [{ runId: 'job-1', epoch: 2, wakeAt: T0 + 90_000 }], {
      now: Date.now(),
      handedOver: false,
    });
    const e = await explain();
    expect(e).toMatchObject({
      hostLease: { holder: 'a', state: 'released', epoch: 2, expired: false },
      wakeAt: T0 + 90_000,
    });
    expect(e.verdict).toMatch(
      new RegExp(
        `^asleep in the store \\(released by 'a'\\): its next event wakes it, or its deadline at ${iso(T0 + 90_000).replace(/\./g, '\\.')} \\(by the sweep of any host\\); then: `,
      ),
    );
    const text = explanationText(e);
    expect(text).toMatch(
      /\nhost: released by 'a' at epoch 2: asleep, held by no host \(last heartbeat (\d+ ms|\d+\.\d s) ago, at .*\)\n/,
    );
    expect(text).toContain(`\nwakes at: ${iso(T0 + 90_000)} (its next deadline, in the store's timer index)\n`);

    // Woken and let go again without a deadline: only its next event wakes it.
    const woken = await leases.claimRun('job-1', elsewhere('b'), { now: Date.now(), ttlMs: 10_000 });
    expect(woken?.previous).toMatchObject({ holder: 'a', state: 'released' });
    await leases.release('b', [{ runId: 'job-1', epoch: 3, wakeAt: null }], { now: Date.now(), handedOver: false });
    const again = await explain();
    expect(again).not.toHaveProperty('wakeAt');
    // Nothing a host would do for it (no timer, no actor): the verdict is only what moves it.
    expect(again.verdict).toMatch(/^nothing will move it without an outside event: ENQUEUE/);
    await store.close();
  });

  it('a run handed over in a graceful stop: adopted with its agents at the next sweep', async () => {
    const { store, leases, explain } = await storeWithRun();
    await leases.claimRun('job-1', elsewhere('a'), { now: Date.now(), ttlMs: 10_000 });
    await leases.release('a', [{ runId: 'job-1', epoch: 2, wakeAt: null }], { now: Date.now(), handedOver: true });
    const e = await explain();
    expect(e.hostLease).toMatchObject({ holder: 'a', state: 'handedOver', epoch: 2 });
    expect(e.verdict).toMatch(
      /^handed over by 'a' in a graceful stop: the next sweep of any host adopts it with its agents; then: /,
    );
    expect(explanationText(e)).toMatch(
      /\nhost: handed over by 'a' at epoch 2, for the next host to adopt \(last heartbeat/,
    );
    await store.close();
  });

  it('a run whose runtime closed without handing over: its lease ran out at the close, still held, so the next host applies the recovery rule', async () => {
    const { store, explain } = await storeWithRun();
    const e = await explain();
    expect(e.hostLease).toMatchObject({ holder: 'first', state: 'held', epoch: 1, expired: true });
    expect(e.verdict).toMatch(
      /^its host 'first' stopped renewing its lease \(expired at .*\): taken over at the next sweep of any host, which applies its recovery rule; then: nothing will move it without an outside event: ENQUEUE/,
    );
    await store.close();
  });

  it('from the live runtime that holds the run: its own lease as the store has it, and no word of hosting in the verdict', async () => {
    const store = sqliteStore(join(testDir('explain-leases'), 'state.db'));
    const runtime = await createRuntime({ store, machines: lifecycles, clock: new ManualClock(T0), owner: 'here' });
    await runtime.start('execution', { id: 'job-1' });
    const e = await explainRun(runtime, 'job-1');
    expect(e.hostLease).toMatchObject({ holder: 'here', state: 'held', epoch: 1, expired: false });
    expect(e.verdict).toMatch(/^nothing will move it without an outside event: ENQUEUE/);
    await runtime.close();
    await store.close();
  });

  it('a store without leases (json-file): no host lease, and the verdict of one host', async () => {
    const store = jsonFileStore(join(testDir('explain-leases'), 'runs'));
    const runtime = await createRuntime({
      store,
      machines: lifecycles,
      recover: false,
      owner: { id: 'first', pid: 2 ** 22 + 17, pidStart: 'never' },
    });
    await runtime.start('execution', { id: 'job-1' });
    await runtime.close();
    const e = await explainRun({ store, machines: lifecycles }, 'job-1');
    expect(e).not.toHaveProperty('hostLease');
    expect(explanationText(e)).not.toMatch(/\nhost: /);
    expect(e.verdict).toMatch(/^nothing will move it without an outside event: ENQUEUE/);
    await store.close();
  });
});
