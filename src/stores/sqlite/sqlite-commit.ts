import type Database from 'better-sqlite3';
import { eventRowSum, eventSum, leaseSum, runCreatedSum, runRowSum } from './sqlite-checksum.js';
import { storedLease, type RunRow } from './sqlite-rows.js';
import { rowWrite, type RowWrite } from './row-write.js';
import type { RunEnd, RunEnds } from './run-ends.js';
import { writeKeys } from './run-keys.js';
import type { Reads } from './run-reads.js';
import type { Statements } from './statements.js';
import { ownerJsonCache } from '../owner-json.js';
import { CommitConflictError, LeaseLostError, type Commit, type CommitLease } from '../store.js';

/** One step of a batch as the commit writes it: its commit, and the JSON of its snapshot and owner. */
interface Step {
  readonly commit: Commit;
  readonly runId: string;
  readonly snapshot: string;
  readonly owner: string | null;
}

/** Where a step starts from once it may be written: the run's end, and how it got there. */
interface Start {
  readonly end: RunEnd;
  /** The step created the run's row. */
  readonly created: boolean;
  /** The run's row, when the step also claims the run (see `fence`). */
  readonly claimed: RunRow | undefined;
  /** The step is fenced by the link that appends its event (`linkFenced`), not yet by `fence`. */
  readonly fenceAtLink?: true;
}

/** A refused step: what it was refused for is recorded in the batch's refusals. */
const REFUSED = undefined;

/**
 * A batch of commits on SQLite: one IMMEDIATE transaction, so the write lock is taken before the
 * runs' ends are read and no other writer moves them on in between. Each step is fenced by its
 * writer's lease, appends its event and links the event before to it (that link only takes if
 * nothing was appended since, `next IS NULL`, which is what refuses a stale writer, also one whose
 * remembered end is out of date), writes its run's row as `rowWrite` chooses, and its index keys.
 * Any refusal throws once the batch is done, which rolls every statement of it back.
 */
export function sqliteCommit(
  db: Database.Database,
  statements: Statements,
  reads: Reads,
  ends: RunEnds,
): Database.Transaction<(commits: readonly Commit[], moved: Map<string, RunEnd>) => void> {
  const s = statements;
  const ownerJson = ownerJsonCache();

  return db.transaction((commits: readonly Commit[], moved: Map<string, RunEnd>) => {
    const refusals = new Refusals((runId) => (moved.get(runId) ?? reads.endOf(runId))?.seq);
    for (const commit of commits) {
      const { run, event, keys } = commit;
      const step: Step = {
        commit,
        runId: run.runId,
        snapshot: JSON.stringify(run.snapshot),
        owner: ownerJson(run.owner),
      };
      const start =
        commit.expectedSeq === undefined
          ? create(step, refusals)
          : fenceAndFindEnd(step, commit.expectedSeq, moved, refusals);
      if (start === REFUSED) continue;
      const eventId = event ? append(step, start, refusals) : null;
      if (eventId === REFUSED) continue;
      const end = start.end;
      const choice = rowWrite({
        created: start.created,
        appended: eventId !== null,
        firstEvent: end.event === null,
        statusChanged: run.status !== end.status || run.version !== end.version,
        ownerChanged: step.owner !== end.owner,
        lag: run.seq - end.checkpointSeq,
        claims: start.claimed !== undefined,
      });
      const checkpointSeq = writeRow(choice, step, start, eventId);
      moved.set(step.runId, {
        seq: run.seq,
        event: eventId ?? end.event,
        checkpointSeq,
        status: run.status,
        version: run.version,
        owner: step.owner,
      });
      writeKeys(s, run, keys);
    }
    refusals.throwIfAny();
  });

  /** A step that creates its run: the row inserted, unless the run exists (a conflict). */
  function create(step: Step, refusals: Refusals): Start | undefined {
    const { run, lease, wakeAt = null } = step.commit;
    const { runId, snapshot, owner } = step;
    const input = JSON.stringify(run.input ?? null);
    const created = s.insertRun.run({
      run_id: runId,
      machine: run.machine,
      version: run.version,
      status: run.status,
      state: run.state,
      seq: run.seq,
      snapshot,
      input,
      owner,
      created_at: run.createdAt,
      updated_at: run.updatedAt,
      created_checksum: runCreatedSum(runId, run.machine, input, run.createdAt),
      checksum: runRowSum(runId, run.version, run.status, run.state, run.seq, snapshot, owner, run.updatedAt, null),
      lease_holder: lease?.holder ?? null,
      lease_state: lease ? 'held' : null,
      lease_epoch: lease?.epoch ?? null,
      lease_expires: lease?.expiresAt ?? null,
      lease_renewed: lease?.now ?? null,
      wake_at: wakeAt,
      lease_checksum: lease
        ? leaseSum(runId, lease.holder, 'held', lease.epoch, lease.expiresAt, lease.now, wakeAt)
        : leaseSum(runId, null, null, null, null, null, wakeAt),
    }).changes;
    if (created !== 1) return refusals.conflict(runId, step.commit.expectedSeq);
    return {
      end: { seq: run.seq, event: null, checkpointSeq: run.seq, status: run.status, version: run.version, owner },
      created: true,
      claimed: undefined,
    };
  }

  /** A step of an existing run: fenced by its writer's lease, then its end found at `expectedSeq`, where the writer saw it. */
  function fenceAndFindEnd(
    step: Step,
    expectedSeq: number,
    moved: ReadonlyMap<string, RunEnd>,
    refusals: Refusals,
  ): Start | undefined {
    const { runId } = step;
    const { event, lease, wakeAt = null } = step.commit;
    // A remembered end is trusted only where the link can refuse it: an event appended after an event.
    const known = moved.get(runId) ?? ends.known(runId);
    const trusted = event && known?.seq === expectedSeq && known.event !== null ? known : undefined;
    // The usual step of a run held here is fenced by the statement that links its event (one
    // statement fewer a step); a key's step is fenced first, so a lost lease is told before a repeated key.
    if (trusted && lease && lease.claims === undefined && event!.idempotencyKey === undefined)
      return { end: trusted, created: false, claimed: undefined, fenceAtLink: true };
    const fenced = lease ? fence(runId, lease, wakeAt) : 'unfenced';
    if (fenced === 'unfenced') s.setWake.run({ run_id: runId, wake_at: wakeAt });
    if (fenced === 'missing') return refusals.conflict(runId, expectedSeq);
    if (fenced === 'lost') return refusals.lost(lostLease(runId, lease!));
    const end = trusted ?? reads.endOf(runId);
    if (end?.seq !== expectedSeq) return refusals.conflict(runId, expectedSeq);
    return { end, created: false, claimed: typeof fenced === 'object' ? fenced : undefined };
  }

  /** A refusal for the writer of a step of `runId` under `lease`, which another holds now. */
  function lostLease(runId: string, lease: CommitLease) {
    return { runId, holder: lease.holder, epoch: lease.epoch, stored: storedLease(reads.findRun(runId)!) };
  }

  /**
   * Links the run's end `previous` to the step's event `eventId`, fenced in the same statement
   * (LINK_EVENT_FENCED). When that does not take, the step is fenced as any other (its lease
   * renewed or its deadline moved, or refused as lost), then linked: whether it was.
   */
  function linkFenced(step: Step, eventId: number, previous: number, refusals: Refusals): boolean | undefined {
    const { runId } = step;
    const { lease, wakeAt = null } = step.commit;
    const { holder, epoch, expiresAt, now } = lease!;
    const renewAfter = expiresAt - (expiresAt - now) / 3;
    if (s.linkEventFenced.run(eventId, previous, runId, holder, epoch, renewAfter, wakeAt).changes === 1) return true;
    const fenced = fence(runId, lease!, wakeAt);
    if (fenced === 'lost') return refusals.lost(lostLease(runId, lease!));
    if (fenced !== 'held') return false;
    return s.linkEvent.run(eventId, previous).changes === 1;
  }

  /**
   * Whether the writer of a step of `runId` still holds its lease ('held'), and if so keeps the
   * lease and the deadline. The lease is renewed only once a third of its time has passed (the
   * heartbeat, `renew`, keeps it anyway), and the row written only then or when the deadline moves:
   * so most steps write no page beyond their event's, as before leases, and a moved deadline alone
   * leaves the index of leases by expiry as it is.
   *
   * A writer that claims the run with this step (`CommitLease.claims`) finds it released at the
   * epoch it read: then the run's whole row, checked, which the step rewrites with the lease it
   * takes (this transaction holds the write lock, so nothing moves the row meanwhile).
   */
  function fence(runId: string, lease: CommitLease, wakeAt: number | null): 'held' | 'lost' | 'missing' | RunRow {
    const stored = lease.claims === undefined ? s.leaseNow.get(runId) : reads.findRun(runId);
    if (!stored) return 'missing';
    const { expiresAt, now } = lease;
    if (stored.lease_state !== 'held' || stored.lease_holder !== lease.holder || stored.lease_epoch !== lease.epoch) {
      const claimable =
        lease.claims !== undefined &&
        stored.status === 'active' &&
        stored.lease_state === 'released' &&
        stored.lease_epoch === lease.claims;
      return claimable ? (stored as RunRow) : 'lost';
    }
    const fenced = { run_id: runId, holder: lease.holder, epoch: lease.epoch, wake_at: wakeAt };
    if (stored.lease_expires! < expiresAt - (expiresAt - now) / 3) {
      s.renewWithStep.run({
        ...fenced,
        expires: expiresAt,
        now,
        lease_checksum: leaseSum(runId, lease.holder, 'held', lease.epoch, expiresAt, now, wakeAt),
      });
    } else if (stored.wake_at !== wakeAt) {
      // The expiry and renewal stay: their sum is checked first, so a damaged one is not sealed anew.
      const { lease_expires, lease_renewed } = stored;
      reads.checkLeaseSum(runId, stored);
      s.moveWake.run({
        ...fenced,
        lease_checksum: leaseSum(runId, lease.holder, 'held', lease.epoch, lease_expires, lease_renewed, wakeAt),
      });
    }
    return 'held';
  }

  /** Appends the step's event after the run's end and links that end to it; the new event's id, or REFUSED. */
  function append(step: Step, { end, fenceAtLink }: Start, refusals: Refusals): number | undefined {
    const { run, event: e, result, expectedSeq } = step.commit;
    const event = e!;
    const { runId, snapshot } = step;
    const eventJson = JSON.stringify(event.event);
    const actor = event.actor ?? null;
    const reason = event.reason ?? null;
    const key = event.idempotencyKey ?? null;
    const credential = event.credential ?? null;
    const resultJson = result === undefined ? null : JSON.stringify(result);
    // The event's columns, in the order both the row and its checksum take them.
    const fields = [
      runId,
      event.seq,
      end.event,
      eventJson,
      event.at,
      actor,
      reason,
      key,
      event.before,
      event.after,
      resultJson,
      credential,
    ] as const;
    let eventId: number;
    try {
      eventId = Number(
        s.appendEvent.run(
          ...fields,
          run.state,
          snapshot,
          run.updatedAt,
          eventSum(...fields),
          eventRowSum(runId, event.seq, run.state, snapshot, run.updatedAt),
        ).lastInsertRowid,
      );
    } catch (error) {
      // A repeated idempotency key from a writer whose remembered end is stale is that writer's conflict.
      if ((error as { code?: unknown }).code !== 'SQLITE_CONSTRAINT_UNIQUE' || reads.endOf(runId)?.seq === expectedSeq)
        throw error;
      return refusals.conflict(runId, expectedSeq);
    }
    if (end.event === null) return eventId;
    const linked = fenceAtLink
      ? linkFenced(step, eventId, end.event, refusals)
      : s.linkEvent.run(eventId, end.event).changes === 1;
    if (linked === REFUSED) return REFUSED;
    if (!linked) return refusals.conflict(runId, expectedSeq);
    return eventId;
  }

  /** Carries out the row write `rowWrite` chose; the seq the run's row is as of afterwards. */
  function writeRow(choice: RowWrite, step: Step, start: Start, eventId: number | null): number {
    const { run, lease, wakeAt = null } = step.commit;
    const { runId, snapshot, owner } = step;
    const { end, claimed } = start;
    if (choice === 'keep') return end.checkpointSeq;
    if (choice === 'lease') {
      // The checkpoint stays as the claimed row holds it; its checksum covers the new owner.
      const row = claimed!;
      const checksum = runRowSum(
        runId,
        row.version,
        row.status,
        row.state,
        row.seq,
        row.snapshot,
        owner,
        row.updated_at,
        row.last_event,
      );
      s.claimWithStep.run({ run_id: runId, owner, checksum, ...leaseTaken(runId, lease!, wakeAt) });
      return end.checkpointSeq;
    }
    const lastEvent = eventId ?? end.event;
    const checksum = runRowSum(
      runId,
      run.version,
      run.status,
      run.state,
      run.seq,
      snapshot,
      owner,
      run.updatedAt,
      lastEvent,
    );
    switch (choice) {
      case 'checkpoint':
        s.checkpoint.run(run.state, run.seq, snapshot, owner, run.updatedAt, lastEvent, checksum, runId);
        break;
      case 'checkpoint and status':
        s.checkpointWithStatus.run(
          run.version,
          run.status,
          run.state,
          run.seq,
          snapshot,
          owner,
          run.updatedAt,
          lastEvent,
          checksum,
          runId,
        );
        break;
      case 'checkpoint and lease':
      case 'checkpoint, status and lease': {
        const row = {
          run_id: runId,
          state: run.state,
          seq: run.seq,
          snapshot,
          owner,
          updated_at: run.updatedAt,
          last_event: lastEvent,
          checksum,
          ...leaseTaken(runId, lease!, wakeAt),
        };
        if (choice === 'checkpoint and lease') s.checkpointClaiming.run(row);
        else s.checkpointWithStatusClaiming.run({ ...row, version: run.version, status: run.status });
        break;
      }
      default:
        throw new Error(`unknown row write ${choice satisfies never}`);
    }
    return run.seq;
  }
}

/** The lease a claiming step takes, as the parameters of its row write. */
function leaseTaken(runId: string, { holder, epoch, expiresAt: expires, now }: CommitLease, wakeAt: number | null) {
  return {
    holder,
    epoch,
    expires,
    now,
    wake_at: wakeAt,
    lease_checksum: leaseSum(runId, holder, 'held', epoch, expires, now, wakeAt),
  };
}

/** The steps of a batch that were refused, as the error the batch throws: a lost lease wins over a stale seq. */
class Refusals {
  readonly #conflicts: Array<{ runId: string; expectedSeq: number | undefined; storedSeq: number | undefined }> = [];
  readonly #lost: Array<ConstructorParameters<typeof LeaseLostError>[0][number]> = [];

  /** Where a run stands now, as far as this batch knows. */
  readonly #storedSeq: (runId: string) => number | undefined;

  constructor(storedSeq: (runId: string) => number | undefined) {
    this.#storedSeq = storedSeq;
  }

  conflict(runId: string, expectedSeq: number | undefined): typeof REFUSED {
    this.#conflicts.push({ runId, expectedSeq, storedSeq: this.#storedSeq(runId) });
    return REFUSED;
  }

  lost(lost: ConstructorParameters<typeof LeaseLostError>[0][number]): typeof REFUSED {
    this.#lost.push(lost);
    return REFUSED;
  }

  /** Throwing inside the transaction rolls every statement of the batch back. */
  throwIfAny(): void {
    if (this.#lost.length) throw new LeaseLostError(this.#lost);
    if (this.#conflicts.length) throw new CommitConflictError(this.#conflicts);
  }
}
