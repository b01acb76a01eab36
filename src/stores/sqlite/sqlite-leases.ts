import type Database from 'better-sqlite3';
import { leaseSum, runRowSum } from './sqlite-checksum.js';
import { storedLease, type RunRow } from './sqlite-rows.js';
import { asRead, asWritten } from './sqlite-text.js';
import { RELEASE_LEASES, RENEW_LEASES, setSynchronous, SWEEP_QUERIES, TAKE_LEASE, type Found } from './statements.js';
import {
  RunHeldError,
  type Claim,
  type ClaimOptions,
  type OwnerInfo,
  type StoreLeases,
  type StoredRun,
} from '../store.js';

/** What the leases need of the store they belong to (sqlite-store.ts). */
export interface LeaseAccess {
  /** The `runs` row of a run, checked (checksums included); undefined when there is none. */
  findRun(runId: string): RunRow | undefined;
  /**
   * The run as a claim just left it: `row` is its checked row with the claim's lease, owner and
   * checksum put in (what the claim wrote, so it is not read back). This connection remembers the
   * run's end from it, so the first commit under the claim need not look the end up again.
   */
  claimed(row: RunRow): StoredRun;
  /** Drops what this connection remembers of a run's end: the run was let go. */
  forget(runId: string): void;
  /** Runs a write: refused when the store may not write, errors turned into the store's own. */
  write<T>(work: () => T): Promise<T>;
  /** Runs a read, errors turned into the store's own. */
  read<T>(work: () => T): Promise<T>;
  /** The store's error for damage found in its file. */
  damaged(reason: string): Error;
}

/**
 * Leases on one SQLite file shared by several processes. Each method is one IMMEDIATE transaction:
 * it takes the file's write lock before it reads, so of two processes sweeping at once the second
 * finds what the first claimed already held, and each run goes to exactly one of them.
 */
export function sqliteLeases(db: Database.Database, access: LeaseAccess): StoreLeases {
  const sweep = {
    expired: db.prepare<[number, string, number], Found>(SWEEP_QUERIES.expired),
    heldBy: db.prepare<[string, string, number], Found>(SWEEP_QUERIES.heldBy),
    due: db.prepare<[number, string, number], Found>(SWEEP_QUERIES.due),
    handedOver: db.prepare<[string, number], Found>(SWEEP_QUERIES.handedOver),
  };
  const holdersOf = db.prepare<[], { owner: string | null; runs: number }>(SWEEP_QUERIES.holders);
  const take = db.prepare(TAKE_LEASE);
  const renewMany = db.prepare<{ holder: string; leases: string; expires: number; now: number }, { run_id: string }>(
    RENEW_LEASES,
  );
  const releaseMany = db.prepare<{ holder: string; leases: string; state: string; now: number }>(RELEASE_LEASES);

  /** Claims the run of the checked `row` for `owner`: the epoch raised by one, held until `now + ttlMs`. */
  function claim(row: RunRow, owner: OwnerInfo, ownerJson: string, now: number, ttlMs: number): Claim {
    const epoch = (row.lease_epoch ?? 0) + 1;
    const expires = now + ttlMs;
    const written = {
      lease_holder: owner.id,
      lease_state: 'held',
      lease_epoch: epoch,
      lease_expires: expires,
      lease_renewed: now,
      lease_checksum: leaseSum(row.run_id, owner.id, 'held', epoch, expires, now, row.wake_at),
      owner: ownerJson,
      checksum: runRowSum(
        row.run_id,
        row.version,
        row.status,
        row.state,
        row.seq,
        row.snapshot,
        ownerJson,
        row.updated_at,
        row.last_event,
      ),
    } satisfies Partial<RunRow>;
    take.run({
      run_id: row.run_id,
      holder: owner.id,
      epoch,
      expires,
      now,
      lease_checksum: written.lease_checksum,
      owner: ownerJson,
      checksum: written.checksum,
    });
    const claimed = access.claimed({ ...row, ...written });
    return {
      run: claimed,
      previous: storedLease(row),
      ...(row.owner !== null && { previousOwner: JSON.parse(row.owner) as OwnerInfo }),
    };
  }

  const claimDue = db.transaction((owner: OwnerInfo, options: Parameters<StoreLeases['claimDue']>[1]): Claim[] => {
    const { now, dueBy, ttlMs, limit, takeFrom = [], passOver = [] } = options;
    const passed = JSON.stringify(passOver);
    const ids = new Set<string>();
    const add = (rows: readonly Found[]) => {
      for (const row of rows) if (ids.size < limit) ids.add(asWritten(row.run_id, row.run_id_hex));
    };
    add(sweep.expired.all(now, passed, limit));
    for (const holder of takeFrom) if (ids.size < limit) add(sweep.heldBy.all(holder, passed, limit));
    if (ids.size < limit) add(sweep.due.all(dueBy, passed, limit));
    if (ids.size < limit) add(sweep.handedOver.all(passed, limit));
    const ownerJson = JSON.stringify(owner);
    return [...ids].map((runId) => {
      const row = access.findRun(runId);
      // Found by the sweep in this transaction, so only damage (an id its row does not hold) loses it.
      if (!row) throw access.damaged(`run ${runId}: the sweep found it, but its row cannot be read by its id`);
      return claim(row, owner, ownerJson, now, ttlMs);
    });
  });

  /** `StoreLeases.claimRun` of one run, inside a write transaction; its refusal given back rather than thrown. */
  function claimOne(runId: string, owner: OwnerInfo, options: ClaimOptions): Claim | RunHeldError | undefined {
    const row = access.findRun(runId);
    if (!row) return undefined;
    const lease = storedLease(row);
    const { now, ttlMs, takeFrom = [] } = options;
    if (
      row.status === 'active' &&
      lease?.state === 'held' &&
      lease.holder !== owner.id &&
      lease.expiresAt > now &&
      !takeFrom.includes(lease.holder)
    ) {
      return new RunHeldError(runId, lease);
    }
    return claim(row, owner, JSON.stringify(owner), now, ttlMs);
  }

  const claimRun = db.transaction((runId: string, owner: OwnerInfo, options: ClaimOptions): Claim | undefined => {
    const claimed = claimOne(runId, owner, options);
    if (claimed instanceof RunHeldError) throw claimed;
    return claimed;
  });
  const claimRuns = db.transaction((runIds: readonly string[], owner: OwnerInfo, options: ClaimOptions) =>
    runIds.map((runId) => claimOne(runId, owner, options)),
  );

  const renew = db.transaction(
    (holder: string, leases: ReadonlyArray<{ runId: string; epoch: number }>, now: number, ttlMs: number): string[] => {
      const renewed = new Set(
        renewMany
          .all({ holder, leases: JSON.stringify(leases.map((l) => [l.runId, l.epoch])), expires: now + ttlMs, now })
          .map((r) => r.run_id),
      );
      // A run id that is not well-formed comes back as SQLite reads it (see sqlite-text.ts).
      return leases.filter((l) => !renewed.has(l.runId) && !renewed.has(asRead(l.runId))).map((l) => l.runId);
    },
  );

  const release = db.transaction(
    (
      holder: string,
      leases: ReadonlyArray<{ runId: string; epoch: number; wakeAt: number | null }>,
      now: number,
      handedOver: boolean,
    ) => {
      releaseMany.run({
        holder,
        leases: JSON.stringify(leases.map((l) => [l.runId, l.epoch, l.wakeAt])),
        state: handedOver ? 'handedOver' : 'released',
        now,
      });
    },
  );

  /**
   * A claim for one event is written without its own fsync (synchronous=NORMAL for its transaction):
   * in WAL mode the frames are appended in order, so the fsync of the event's commit, which follows
   * at once, makes the claim durable with it. Lost to a power cut before that, the claim goes with
   * the host that made it, and nothing was acknowledged under it. That halves what waking a sleeping
   * run for one event costs (two fsyncs to one).
   */
  const synchronous = db.pragma('synchronous', { simple: true }) as number;
  const syncNormal = db.prepare(setSynchronous('NORMAL'));
  const syncAsOpened = db.prepare(setSynchronous(synchronous));
  const unsynced = <T>(work: () => T): T => {
    if (synchronous < 2) return work();
    syncNormal.run();
    try {
      return work();
    } finally {
      syncAsOpened.run();
    }
  };

  return {
    claimDue: (owner, options) => access.write(() => claimDue.immediate(owner, options)),
    claimRun: (runId, owner, options) => access.write(() => unsynced(() => claimRun.immediate(runId, owner, options))),
    claimRuns: (runIds, owner, options) =>
      access.write(() => unsynced(() => claimRuns.immediate(runIds, owner, options))),
    renew: (holder, leases, { now, ttlMs }) =>
      access.write(() => (leases.length ? renew.immediate(holder, leases, now, ttlMs) : [])),
    release: (holder, leases, { now, handedOver }) =>
      access.write(() => {
        if (leases.length === 0) return;
        release.immediate(holder, leases, now, handedOver);
        for (const { runId } of leases) access.forget(runId);
      }),
    holders: () =>
      access.read(() =>
        holdersOf
          .all()
          .filter((row): row is { owner: string; runs: number } => row.owner !== null)
          .map((row) => ({ owner: JSON.parse(row.owner) as OwnerInfo, runs: row.runs })),
      ),
  };
}
