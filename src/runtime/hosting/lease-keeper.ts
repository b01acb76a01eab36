/**
 * The leases one runtime holds on a store shared with other hosts (`Store.leases`): which runs it
 * holds at which epoch, the lease each of their commits is fenced by, the renewals (one store call
 * per batch of runs, never one per run) and the releases.
 */
import {
  RunHeldError,
  type CommitLease,
  type LeaseLostError,
  type OwnerInfo,
  type RunLease,
  type StoreLeases,
} from '../../stores/store.js';
import { InvalidArgumentError } from '../errors.js';

/** The default lease TTL: a host silent this long loses its runs to another host's sweep. */
export const DEFAULT_LEASE_TTL_MS = 10_000;

/** `createRuntime({ leases })` checked: the lease TTL in ms. */
export function leaseTtl(option: { ttlMs?: number } | undefined): number {
  if (option !== undefined && (option === null || typeof option !== 'object'))
    throw new InvalidArgumentError('createRuntime({ leases })', option, 'an object such as { ttlMs: 10000 }');
  const ttlMs = option?.ttlMs;
  if (ttlMs === undefined) return DEFAULT_LEASE_TTL_MS;
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 4)
    throw new InvalidArgumentError(
      "lease 'ttlMs'",
      ttlMs,
      'a whole number of milliseconds, 4 or more (10000 by default): how long a silent host keeps its runs',
    );
  return ttlMs;
}

/** Runs per renew or release call: one statement each, of a size every store takes. */
const BATCH = 1000;

export class LeaseKeeper {
  /** Run id -> the epoch this runtime holds it at. */
  readonly #held = new Map<string, number>();
  /** Runs held here whose creation commit is not yet durable (see `holdNew`). */
  readonly #creating = new Set<string>();
  /** Run id -> the epoch of the released lease it was read at: its next commit claims it (see `claimOnCommit`). */
  readonly #claiming = new Map<string, number>();

  constructor(
    readonly leases: StoreLeases,
    readonly owner: OwnerInfo,
    readonly ttlMs: number,
  ) {}

  holds(runId: string): boolean {
    return this.#held.has(runId);
  }

  epochOf(runId: string): number | undefined {
    return this.#held.get(runId);
  }

  /**
   * Holds `runId` at `epoch`, or at the epoch it is held at here already if that is higher: a claim
   * answered late (the sweep's, say, behind an event's claim of the same run that came after it)
   * never lowers the epoch this runtime's commits and renewals are fenced by, which the store
   * would refuse as lost.
   */
  hold(runId: string, epoch: number): void {
    const held = this.#held.get(runId);
    if (held === undefined || epoch > held) this.#held.set(runId, epoch);
    this.#claiming.delete(runId);
  }

  /**
   * A wake of one write: `runId` was read, not claimed, with its lease released at `epoch`; its
   * next commit claims it (`CommitLease.claims`), and `committed` holds it from then on. Until then
   * renewals leave it out (the store does not know it as held), and a claim of it (this host's
   * sweep) holds it as usual, the commit then going under that lease.
   */
  claimOnCommit(runId: string, epoch: number): void {
    if (!this.#held.has(runId)) this.#claiming.set(runId, epoch);
  }

  /** A commit under `lease` is durable: a claiming one leaves the run held here at its epoch. */
  committed(runId: string, lease: CommitLease): void {
    if (lease.claims !== undefined && this.#claiming.get(runId) === lease.claims) this.hold(runId, lease.epoch);
  }

  /** The lease `runId` is stored with: one its claiming commit took (its answer lost) leaves the run held here. */
  claimLanded(runId: string, stored: RunLease): void {
    const claims = this.#claiming.get(runId);
    if (
      claims !== undefined &&
      stored.state === 'held' &&
      stored.holder === this.owner.id &&
      stored.epoch === claims + 1
    )
      this.hold(runId, stored.epoch);
  }

  /**
   * Holds a run this runtime is creating, from before its creation commit is durable: until
   * `created`, renewals leave it out, since the store, not knowing the run yet, would report it lost.
   */
  holdNew(runId: string, epoch: number): void {
    this.#creating.add(runId);
    this.#held.set(runId, epoch);
  }

  /** The creation commit of a run held by `holdNew` is durable (or refused): renewals take it from now on. */
  created(runId: string): void {
    this.#creating.delete(runId);
  }

  forget(runId: string): void {
    this.#held.delete(runId);
    this.#creating.delete(runId);
    this.#claiming.delete(runId);
  }

  /**
   * The lease a commit for `runId` is written under (each commit renews it): the one held here, else
   * the claim of a run read to be woken (`claimOnCommit`); undefined when neither.
   */
  commitLease(runId: string, now = Date.now()): CommitLease | undefined {
    const epoch = this.#held.get(runId);
    if (epoch !== undefined) return { holder: this.owner.id, epoch, expiresAt: now + this.ttlMs, now };
    const claims = this.#claiming.get(runId);
    return claims === undefined
      ? undefined
      : { holder: this.owner.id, epoch: claims + 1, expiresAt: now + this.ttlMs, now, claims };
  }

  /** The lease a run created here starts with. */
  creationLease(now = Date.now()): CommitLease {
    return { holder: this.owner.id, epoch: 1, expiresAt: now + this.ttlMs, now };
  }

  /** Renews every lease held here; resolves with the runs the store says this runtime no longer holds (forgotten here). */
  async renewAll(): Promise<Array<{ runId: string; epoch: number }>> {
    const lost: Array<{ runId: string; epoch: number }> = [];
    const renewable = [...this.#held].filter(([runId]) => !this.#creating.has(runId));
    for (const batch of batches(renewable.map(([runId, epoch]) => ({ runId, epoch })))) {
      const asked = new Map(batch.map((l) => [l.runId, l.epoch]));
      for (const runId of await this.leases.renew(this.owner.id, batch, { now: Date.now(), ttlMs: this.ttlMs })) {
        // Still held at the epoch asked about: a run claimed again here meanwhile is not lost.
        const epoch = asked.get(runId);
        if (epoch !== undefined && this.#held.get(runId) === epoch) {
          this.#held.delete(runId);
          lost.push({ runId, epoch });
        }
      }
    }
    return lost;
  }

  /** Lets go of these runs (`handedOver`: their actors run on, for the next holder to adopt). */
  async release(
    runs: ReadonlyArray<{ readonly runId: string; readonly wakeAt: number | null }>,
    handedOver: boolean,
  ): Promise<void> {
    const held = runs.flatMap(({ runId, wakeAt }) => {
      const epoch = this.#held.get(runId);
      this.#held.delete(runId);
      this.#claiming.delete(runId);
      return epoch === undefined ? [] : [{ runId, epoch, wakeAt }];
    });
    for (const batch of batches(held)) await this.leases.release(this.owner.id, batch, { now: Date.now(), handedOver });
  }

  /**
   * Lets every lease held here run out now, still held: the next host to claim the runs applies
   * their recovery rule, as after this host's death (what `close()` without hand-over means: the
   * actors were ended, the runs must learn of it).
   */
  async expireAll(): Promise<void> {
    await this.expire([...this.#held.keys()]);
  }

  /** Lets these leases run out now, still held (see `expireAll`). */
  async expire(runIds: readonly string[]): Promise<void> {
    const held = runIds.flatMap((runId) => {
      const epoch = this.#held.get(runId);
      this.#held.delete(runId);
      this.#claiming.delete(runId);
      return epoch === undefined ? [] : [{ runId, epoch }];
    });
    for (const batch of batches(held)) await this.leases.renew(this.owner.id, batch, { now: Date.now(), ttlMs: 0 });
  }
}

/**
 * What the senders of a claiming commit hear when it is refused: the run held by another host is
 * `RunHeldError`, as from a claim; anything else (taken and let go meanwhile) the refusal itself.
 */
export function claimRefusal(error: LeaseLostError): Error {
  const stored = error.lost[0]?.stored;
  return stored?.state === 'held' ? new RunHeldError(error.lost[0]!.runId, stored) : error;
}

function batches<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += BATCH) out.push(items.slice(i, i + BATCH));
  return out;
}
