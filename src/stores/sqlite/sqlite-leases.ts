import type Database from 'better-sqlite3';
import { LEASE_SUM, leaseSum, runRowSum, sqlSum } from './sqlite-checksum.js';
import { storedLease, type RunRow } from './sqlite-rows.js';
import { asRead, asWritten, rawText } from './sqlite-text.js';
import { RunHeldError, type Claim, type ClaimOptions, type OwnerInfo, type StoreLeases, type StoredRun } from '../store.js';

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

/** A run the sweep found: its id as read, and its bytes where they may differ (see sqlite-text.ts). */
type Found = { run_id: string; run_id_hex: string | null };
/** What each sweep query selects: the id as written can be read back from it. */
const FOUND = `run_id, ${rawText('run_id', 'run_id_hex')}`;

/**
 * The sweep's queries, one per kind of run it claims. Each names its partial index (LEASE_INDEXES
 * in sqlite-schema.ts: `INDEXED BY`, as the planner would otherwise walk `runs_by_status` over every
 * active run) and repeats its WHERE clause word for word, which a partial index needs.
 */
export const SWEEP_QUERIES = {
  expired: `SELECT ${FOUND} FROM runs INDEXED BY runs_held WHERE lease_state = 'held' AND status = 'active' AND lease_expires <= ? ORDER BY lease_expires LIMIT ?`,
  heldBy: `SELECT ${FOUND} FROM runs INDEXED BY runs_held WHERE lease_state = 'held' AND status = 'active' AND lease_holder = ? LIMIT ?`,
  due: `SELECT ${FOUND} FROM runs INDEXED BY runs_asleep_by_wake WHERE lease_state IS NOT 'held' AND status = 'active' AND wake_at IS NOT NULL AND wake_at <= ? ORDER BY wake_at LIMIT ?`,
  handedOver: `SELECT ${FOUND} FROM runs INDEXED BY runs_handed_over WHERE lease_state = 'handedOver' AND status = 'active' LIMIT ?`,
  holders: `SELECT owner, count(*) AS runs FROM runs INDEXED BY runs_held WHERE lease_state = 'held' AND status = 'active' GROUP BY lease_holder, owner`,
} as const;

/**
 * Leases on one SQLite file shared by several processes. Each method is one IMMEDIATE transaction:
 * it takes the file's write lock before it reads, so of two processes sweeping at once the second
 * finds what the first claimed already held, and each run goes to exactly one of them.
 */
export function sqliteLeases(db: Database.Database, access: LeaseAccess): StoreLeases {
  const sweep = {
    expired: db.prepare<[number, number], Found>(SWEEP_QUERIES.expired),
    heldBy: db.prepare<[string, number], Found>(SWEEP_QUERIES.heldBy),
    due: db.prepare<[number, number], Found>(SWEEP_QUERIES.due),
    handedOver: db.prepare<[number], Found>(SWEEP_QUERIES.handedOver),
  };
  const holdersOf = db.prepare<[], { owner: string | null; runs: number }>(SWEEP_QUERIES.holders);
  // The owner is covered by the row's checksum, which a claim computes anew from the row it checked.
  const take = db.prepare(
    `UPDATE runs SET lease_holder = @holder, lease_state = 'held', lease_epoch = @epoch, lease_expires = @expires, lease_renewed = @now,
       lease_checksum = @lease_checksum, owner = @owner, checksum = @checksum
     WHERE run_id = @run_id`,
  );
  // A lease whose stored sum does not match is left alone (not renewed, reported lost): the next
  // read of that run reports the damage instead of a recomputed sum hiding it.
  const renewMany = db.prepare<{ holder: string; leases: string; expires: number; now: number }, { run_id: string }>(
    `UPDATE runs SET lease_expires = @expires, lease_renewed = @now,
       lease_checksum = ${sqlSum('run_id, lease_holder, lease_state, lease_epoch, @expires, @now, wake_at')}
     FROM (SELECT value ->> 0 AS id, value ->> 1 AS held_epoch FROM json_each(@leases)) AS mine
     WHERE run_id = mine.id AND lease_holder = @holder AND lease_state = 'held' AND lease_epoch = mine.held_epoch
       AND lease_checksum = ${sqlSum(LEASE_SUM)}
     RETURNING run_id`,
  );
  const releaseMany = db.prepare<{ holder: string; leases: string; state: string; now: number }>(
    `UPDATE runs SET lease_state = @state, lease_renewed = @now, wake_at = mine.next_wake,
       lease_checksum = ${sqlSum('run_id, lease_holder, @state, lease_epoch, lease_expires, @now, mine.next_wake')}
     FROM (SELECT value ->> 0 AS id, value ->> 1 AS held_epoch, value ->> 2 AS next_wake FROM json_each(@leases)) AS mine
     WHERE run_id = mine.id AND lease_holder = @holder AND lease_state = 'held' AND lease_epoch = mine.held_epoch
       AND lease_checksum = ${sqlSum(LEASE_SUM)}`,
  );

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
      checksum: runRowSum(row.run_id, row.version, row.status, row.state, row.seq, row.snapshot, ownerJson, row.updated_at, row.last_event),
    } satisfies Partial<RunRow>;
    take.run({ run_id: row.run_id, holder: owner.id, epoch, expires, now, lease_checksum: written.lease_checksum, owner: ownerJson, checksum: written.checksum });
    const claimed = access.claimed({ ...row, ...written });
    return { run: claimed, previous: storedLease(row), ...(row.owner !== null && { previousOwner: JSON.parse(row.owner) as OwnerInfo }) };
  }

  const claimDue = db.transaction((owner: OwnerInfo, options: Parameters<StoreLeases['claimDue']>[1]): Claim[] => {
    const { now, dueBy, ttlMs, limit, takeFrom = [] } = options;
    const ids = new Set<string>();
    const add = (rows: readonly Found[]) => {
      for (const row of rows) if (ids.size < limit) ids.add(asWritten(row.run_id, row.run_id_hex));
    };
    add(sweep.expired.all(now, limit));
    for (const holder of takeFrom) if (ids.size < limit) add(sweep.heldBy.all(holder, limit));
    if (ids.size < limit) add(sweep.due.all(dueBy, limit));
    if (ids.size < limit) add(sweep.handedOver.all(limit));
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
    if (row.status === 'active' && lease?.state === 'held' && lease.holder !== owner.id && lease.expiresAt > now && !takeFrom.includes(lease.holder)) {
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

  const renew = db.transaction((holder: string, leases: ReadonlyArray<{ runId: string; epoch: number }>, now: number, ttlMs: number): string[] => {
    const renewed = new Set(renewMany.all({ holder, leases: JSON.stringify(leases.map((l) => [l.runId, l.epoch])), expires: now + ttlMs, now }).map((r) => r.run_id));
    // A run id that is not well-formed comes back as SQLite reads it (see sqlite-text.ts).
    return leases.filter((l) => !renewed.has(l.runId) && !renewed.has(asRead(l.runId))).map((l) => l.runId);
  });

  const release = db.transaction((holder: string, leases: ReadonlyArray<{ runId: string; epoch: number; wakeAt: number | null }>, now: number, handedOver: boolean) => {
    releaseMany.run({ holder, leases: JSON.stringify(leases.map((l) => [l.runId, l.epoch, l.wakeAt])), state: handedOver ? 'handedOver' : 'released', now });
  });

  /**
   * A claim for one event is written without its own fsync (synchronous=NORMAL for its transaction):
   * in WAL mode the frames are appended in order, so the fsync of the event's commit, which follows
   * at once, makes the claim durable with it. Lost to a power cut before that, the claim goes with
   * the host that made it, and nothing was acknowledged under it. That halves what waking a sleeping
   * run for one event costs (two fsyncs to one).
   */
  const synchronous = db.pragma('synchronous', { simple: true }) as number;
  const syncNormal = db.prepare('PRAGMA synchronous = NORMAL');
  const syncAsOpened = db.prepare(`PRAGMA synchronous = ${synchronous}`);
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
    claimRuns: (runIds, owner, options) => access.write(() => unsynced(() => claimRuns.immediate(runIds, owner, options))),
    renew: (holder, leases, { now, ttlMs }) => access.write(() => (leases.length ? renew.immediate(holder, leases, now, ttlMs) : [])),
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
