/**
 * The verdict on a store with leases, from the facts alone: who hosts the run, or who will, said
 * before what moves it. The same verdicts from stored runs are in explain-leases.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { hostLease, span } from '../../src/explain/host-lease.js';
import { verdict, type VerdictFacts } from '../../src/explain/index.js';
import type { RunLease } from '../../src/stores/store.js';

const NOW = Date.UTC(2026, 0, 1, 9);
const iso = (ms: number) => new Date(ms).toISOString();
const waiting: VerdictFacts = {
  state: 'queued',
  status: 'active',
  accepts: [{ type: 'START', needs: { fields: [] } }],
  deadlines: [{ name: 'queueTimeout', at: NOW + 60_000, event: 'TIMEOUT' }],
  actors: [],
  hosted: false,
};
const moves = `TIMEOUT at ${iso(NOW + 60_000)} moves it unless an outside event comes first: START`;
const lease = (fields: Partial<RunLease>): RunLease => ({
  holder: 'a',
  state: 'held',
  epoch: 3,
  expiresAt: NOW + 8_000,
  renewedAt: NOW - 2_000,
  ...fields,
});
const hosting = (
  fields: Partial<RunLease>,
  more: { here?: boolean; holderGone?: boolean; wakeAt?: number; severalHosts?: boolean } = {},
) => ({
  ...waiting,
  hosting: {
    lease: hostLease(lease(fields), NOW),
    here: more.here ?? false,
    holderGone: more.holderGone ?? false,
    severalHosts: more.severalHosts ?? true,
    ...(more.wakeAt !== undefined && { wakeAt: more.wakeAt }),
  },
});

describe('the verdict of a run on a store with leases', () => {
  it('held here: only what moves it', () => {
    expect(verdict(hosting({}, { here: true }))).toBe(moves);
  });

  it('held by another live host: names it, its epoch and heartbeat', () => {
    expect(verdict(hosting({}))).toBe(
      `hosted by the live host 'a' (epoch 3, last heartbeat 2.0 s ago; send its events there): ${moves}`,
    );
  });

  it('on a store one host has: held or asleep, nothing of hosts, epochs or heartbeats', () => {
    expect(verdict(hosting({}, { severalHosts: false }))).toBe(moves);
    expect(verdict(hosting({ state: 'released' }, { wakeAt: NOW + 60_000, severalHosts: false }))).toBe(moves);
    // What went wrong is said all the same: its host stopped renewing, or its process ended.
    expect(verdict(hosting({ expiresAt: NOW - 1 }, { severalHosts: false }))).toMatch(/^its host 'a' stopped renewing/);
    expect(verdict(hosting({}, { holderGone: true, severalHosts: false }))).toMatch(/^its host 'a' is gone/);
  });

  it('held by a host that stopped renewing: taken over at the next sweep of any host', () => {
    expect(verdict(hosting({ expiresAt: NOW - 1, renewedAt: NOW - 11_000 }))).toBe(
      `its host 'a' stopped renewing its lease (expired at ${iso(NOW - 1)}, last heartbeat 11.0 s ago): taken over at the next sweep of any host, which applies its recovery rule; then: ${moves}`,
    );
    // The moment of expiry counts as expired: the sweep takes leases with expiresAt <= now.
    expect(hostLease(lease({ expiresAt: NOW }), NOW).expired).toBe(true);
    expect(hostLease(lease({ expiresAt: NOW + 1 }), NOW).expired).toBe(false);
  });

  it('held by a process of this machine that ended: taken at the next local sweep, or by any host at expiry', () => {
    expect(verdict(hosting({}, { holderGone: true }))).toBe(
      `its host 'a' is gone (its process on this machine ended): taken over at the next sweep of a host on this machine, or of any host once its lease runs out at ${iso(NOW + 8_000)}; then: ${moves}`,
    );
  });

  it('asleep: its next event wakes it, or its deadline', () => {
    expect(verdict(hosting({ state: 'released' }, { wakeAt: NOW + 60_000 }))).toBe(
      `asleep in the store (released by 'a'): its next event wakes it, or its deadline at ${iso(NOW + 60_000)} (by the sweep of any host); then: ${moves}`,
    );
    expect(verdict({ ...hosting({ state: 'released' }), actors: ['agent'] })).toBe(
      `asleep in the store (released by 'a'): its next event wakes it; then: waiting for agent to report, or TIMEOUT at ${iso(NOW + 60_000)}`,
    );
    // With no timer and no actor, nothing a host would do: only an outside event moves it, wherever it is sent.
    expect(verdict({ ...hosting({ state: 'released' }), deadlines: [] })).toBe(
      'nothing will move it without an outside event: START',
    );
    // An expiry in the past means nothing once let go: a released lease is not "expired".
    expect(hostLease(lease({ state: 'released', expiresAt: NOW - 1 }), NOW).expired).toBe(false);
  });

  it('with no host on its store: a run whose timer needs one says to start one, rather than who takes it over', () => {
    const start =
      'no live process hosts it, and its timer fires only in one: start `statewright serve` on its store to fire it; then: ';
    expect(verdict({ ...hosting({}, { holderGone: true }), noHost: true })).toBe(start + moves);
    expect(verdict({ ...hosting({ expiresAt: NOW - 1 }), noHost: true })).toBe(start + moves);
    expect(verdict({ ...hosting({ state: 'released' }, { wakeAt: NOW + 60_000 }), noHost: true })).toBe(start + moves);
    // An `after` delay of its state is a timer as well.
    const after = {
      ...hosting({ state: 'handedOver' }),
      deadlines: [],
      movesOnItsOwn: [{ event: 'xstate.after.20000.m.queued', label: 'after 20 s', to: ['expired'] }],
      noHost: true,
    };
    expect(verdict(after)).toBe(`${start}after 20 s -> expired moves it unless an outside event comes first: START`);
    // Nothing that needs a host: who takes it over (and applies its recovery rule) when an event comes.
    expect(verdict({ ...hosting({ expiresAt: NOW - 1 }), deadlines: [], noHost: true })).toBe(
      `its host 'a' stopped renewing its lease (expired at ${iso(NOW - 1)}, last heartbeat 2.0 s ago): taken over at the next sweep of any host, which applies its recovery rule; then: nothing will move it without an outside event: START`,
    );
    // A live host holds it (on another machine, say): that host fires it.
    expect(verdict({ ...hosting({}), noHost: true })).toBe(
      `hosted by the live host 'a' (epoch 3, last heartbeat 2.0 s ago; send its events there): ${moves}`,
    );
  });

  it('handed over: adopted with its agents at the next sweep', () => {
    expect(verdict(hosting({ state: 'handedOver' }))).toBe(
      `handed over by 'a' in a graceful stop: the next sweep of any host adopts it with its agents; then: ${moves}`,
    );
  });

  it('a finished or set-aside run says that first, whatever its lease', () => {
    expect(verdict({ ...hosting({ expiresAt: NOW - 1 }), status: 'done' })).toBe(
      "finished (done) in 'queued': nothing will move it again",
    );
    expect(verdict({ ...hosting({}), setAside: { reason: 'no migration' } })).toBe(
      'set aside: no migration; a registered migration or a person must move it on',
    );
  });

  it('gives spans a person reads', () => {
    expect([0, 999, 1000, 59_949, 60_000, 3_599_999, 3_600_000, 86_400_000 * 2].map(span)).toEqual([
      '0 ms',
      '999 ms',
      '1.0 s',
      '59.9 s',
      '1 min',
      '59 min',
      '1 h',
      '2 d',
    ]);
    expect(hostLease(lease({ renewedAt: NOW + 50 }), NOW).heartbeatAgeMs).toBe(0);
  });
});
