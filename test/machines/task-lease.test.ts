import { describe, expect, it } from 'vitest';
import { claimLease, isLive, mayChange, renewLease, type Lease } from '../../machines/task/index.js';
import { ManualClock } from '../../src/actor-contract/clock.js';

const TTL = 90_000;
const A = 'executor:codex:1';
const B = 'executor:claude:2';
const SUPERVISOR = 'supervisor:claude:1';

function granted(result: ReturnType<typeof claimLease>): Lease {
  if (!result.ok) throw new Error(`refused: ${result.message}`);
  return result.lease;
}

describe('task leases', () => {
  it('are claimed for a TTL from now, with the heartbeat stamped', () => {
    const clock = new ManualClock();
    const result = claimLease(undefined, A, clock.now(), TTL);
    expect(result).toEqual({
      ok: true,
      outcome: 'claimed',
      lease: { claimedBy: A, leaseUntil: clock.now() + TTL, lastHeartbeat: clock.now() },
    });
  });

  it('are claimed again by their holder without error, which extends them', () => {
    const clock = new ManualClock();
    const lease = granted(claimLease(undefined, A, clock.now(), TTL));
    clock.advance(10_000);
    expect(claimLease(lease, A, clock.now(), TTL)).toEqual({
      ok: true,
      outcome: 'reclaimed',
      lease: { claimedBy: A, leaseUntil: clock.now() + TTL, lastHeartbeat: clock.now() },
    });
  });

  it('cannot be claimed by another agent while alive, and can the instant they expire', () => {
    const clock = new ManualClock();
    const lease = granted(claimLease(undefined, A, clock.now(), TTL));
    clock.advance(TTL - 1);
    expect(claimLease(lease, B, clock.now(), TTL)).toMatchObject({
      ok: false,
      code: 'claimed_by_other',
      holder: A,
      leaseUntil: lease.leaseUntil,
    });
    expect(isLive(lease, clock.now())).toBe(true);
    clock.advance(1);
    expect(isLive(lease, clock.now())).toBe(false);
    expect(claimLease(lease, B, clock.now(), TTL)).toMatchObject({
      ok: true,
      outcome: 'taken_over',
      lease: { claimedBy: B },
    });
  });

  it('live on through heartbeats: each one moves the end to a TTL after it', () => {
    const clock = new ManualClock();
    let lease = granted(claimLease(undefined, A, clock.now(), TTL));
    for (let beat = 0; beat < 10; beat++) {
      clock.advance(30_000); // the heartbeat interval: 10 of them span 300 s, far beyond one TTL
      const renewed = renewLease(lease, A, clock.now(), TTL);
      expect(renewed).toMatchObject({ ok: true, outcome: 'renewed' });
      lease = granted(renewed);
      expect(claimLease(lease, B, clock.now(), TTL)).toMatchObject({ ok: false, code: 'claimed_by_other' });
    }
    expect(lease).toEqual({ claimedBy: A, leaseUntil: clock.now() + TTL, lastHeartbeat: clock.now() });
  });

  it('refuse a heartbeat with not_claimed, claimed_by_other or expired, as ferrus does', () => {
    const clock = new ManualClock();
    expect(renewLease(undefined, A, clock.now(), TTL)).toMatchObject({
      ok: false,
      code: 'not_claimed',
      message: expect.stringContaining('nobody has claimed'),
    });
    const lease = granted(claimLease(undefined, A, clock.now(), TTL));
    expect(renewLease(lease, B, clock.now(), TTL)).toMatchObject({ ok: false, code: 'claimed_by_other', holder: A });
    clock.advance(TTL);
    expect(renewLease(lease, A, clock.now(), TTL)).toEqual({
      ok: false,
      code: 'expired',
      expiredAt: lease.leaseUntil,
      message: `The lease of ${A} expired at ${new Date(lease.leaseUntil).toISOString()}. Claim the task again.`,
    });
    // Expired, it is still someone else's to A's fellow: the way in is a claim, not a heartbeat.
    expect(renewLease(lease, B, clock.now(), TTL)).toMatchObject({ ok: false, code: 'claimed_by_other' });
  });

  it('let only the holder change the task, and not once its lease has expired or been taken over', () => {
    const clock = new ManualClock();
    const lease = granted(claimLease(undefined, A, clock.now(), TTL));
    expect(mayChange(lease, A, clock.now())).toEqual({ ok: true });
    expect(mayChange(lease, B, clock.now())).toMatchObject({ ok: false, code: 'claimed_by_other', holder: A });
    clock.advance(TTL);
    // A stopped heartbeating (it died): its late write is refused, taken over or not.
    expect(mayChange(lease, A, clock.now())).toMatchObject({ ok: false, code: 'expired' });
    const takenOver = granted(claimLease(lease, B, clock.now(), TTL));
    expect(mayChange(takenOver, A, clock.now())).toMatchObject({ ok: false, code: 'claimed_by_other', holder: B });
    expect(mayChange(takenOver, B, clock.now())).toEqual({ ok: true });
  });

  it('bind only the role that holds them, and nobody when there is none', () => {
    const clock = new ManualClock();
    const lease = granted(claimLease(undefined, A, clock.now(), TTL));
    expect(mayChange(lease, SUPERVISOR, clock.now())).toEqual({ ok: true });
    expect(mayChange(undefined, A, clock.now())).toEqual({ ok: true });
    clock.advance(TTL);
    expect(mayChange(lease, B, clock.now())).toEqual({ ok: true }); // a dead lease of another binds no one
  });
});
