/**
 * A batch of commits on Postgres in one round trip: one call of the schema's `commit_steps`
 * function (see postgres-schema.ts) in autocommit, so the statement is its own transaction and no
 * BEGIN or COMMIT is sent. The seq check and the lease fence are inside it; a refusal comes back as
 * an error whose DETAIL says, for each refused run, what is stored, and becomes `LeaseLostError` or
 * `CommitConflictError` here.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { isConnectionLoss } from './postgres-connection-loss.js';
import { settleLostCommit, type Backend, type OutcomeSource } from './postgres-commit-outcome.js';
import { COMMIT_REFUSED } from './postgres-schema.js';
import { CommitConflictError, findConflicts, LeaseLostError, type Commit, type CommitLease, type RunLease } from './store.js';
import { StoreUnavailableError } from './store-errors.js';

export interface CommitTarget extends OutcomeSource {
  /** A pooled connection; `StoreUnavailableError` when none can be had. */
  connect(): Promise<pg.PoolClient>;
  /** The backend a pooled connection talks to (asked the first time, then known). */
  backendOf(client: pg.PoolClient): Promise<Backend>;
}

/** One run's part of a batch: several steps of one run become one row write, its first expected seq and its last row. */
interface RunWrite {
  first: Commit;
  last: Commit;
  lease: CommitLease | undefined;
}

/** What `commit_steps` says of each run it refused. */
interface Refusal {
  runId: string;
  storedSeq: number | null;
  lease: RunLease | null;
}

/** A batch of steps whose chain is broken (a step that does not extend the one before it in the batch) is refused without being sent. */
function byRun(commits: readonly Commit[]): { writes: RunWrite[]; chainBroken: boolean } {
  const writes = new Map<string, RunWrite>();
  let chainBroken = false;
  for (const c of commits) {
    const seen = writes.get(c.run.runId);
    if (!seen) writes.set(c.run.runId, { first: c, last: c, lease: c.lease });
    else {
      if (c.expectedSeq !== seen.last.run.seq) chainBroken = true;
      seen.last = c;
      seen.lease = c.lease ?? seen.lease;
    }
  }
  return { writes: [...writes.values()], chainBroken };
}

/** The batch as `commit_steps` takes it (fields as RUN_FIELDS and EVENT_FIELDS in postgres-schema.ts): two JSON arrays. */
function parameters(commitId: string, writes: RunWrite[], commits: readonly Commit[]): [string, string, string] {
  const runs = writes.map(({ first, last, lease }) => ({
    run_id: last.run.runId,
    machine: last.run.machine,
    version: last.run.version,
    status: last.run.status,
    state: last.run.state,
    seq: last.run.seq,
    snapshot: last.run.snapshot,
    input: last.run.input,
    owner: last.run.owner,
    created_at: last.run.createdAt,
    updated_at: last.run.updatedAt,
    wake_at: last.wakeAt,
    expected_seq: first.expectedSeq,
    lease_holder: lease?.holder,
    lease_epoch: lease?.epoch,
    lease_expires: lease?.expiresAt,
    lease_now: lease?.now,
  }));
  const events = commits.flatMap(({ event: e, result }) =>
    e
      ? [{ run_id: e.runId, seq: e.seq, event: e.event, at: e.at, actor: e.actor, reason: e.reason, idempotency_key: e.idempotencyKey, before_state: e.before, after_state: e.after, result }]
      : [],
  );
  return [commitId, JSON.stringify(runs), JSON.stringify(events)];
}

const callText = (schema: string) => `SELECT ${schema}.commit_steps($1::bigint, $2::json, $3::json)`;

/** The refusal as the typed error it is: a lost lease wins over a stale seq, since the writer must stop hosting the run. */
function refusalError(refused: Refusal[], writes: RunWrite[]): LeaseLostError | CommitConflictError {
  const writeOf = new Map(writes.map((w) => [w.first.run.runId, w]));
  const lost: Array<{ runId: string; holder: string; epoch: number; stored: RunLease | undefined }> = [];
  const conflicts: Array<{ runId: string; expectedSeq: number | undefined; storedSeq: number | undefined }> = [];
  for (const r of refused) {
    const write = writeOf.get(r.runId)!;
    const lease = write.lease;
    const fenced = lease !== undefined && write.first.expectedSeq !== undefined && r.storedSeq !== null;
    if (fenced && !(r.lease?.state === 'held' && r.lease.holder === lease.holder && r.lease.epoch === lease.epoch)) {
      lost.push({ runId: r.runId, holder: lease.holder, epoch: lease.epoch, stored: r.lease ?? undefined });
    } else conflicts.push({ runId: r.runId, expectedSeq: write.first.expectedSeq, storedSeq: r.storedSeq ?? undefined });
  }
  return lost.length ? new LeaseLostError(lost) : new CommitConflictError(conflicts);
}

export async function commitSteps(target: CommitTarget, commits: readonly Commit[]): Promise<void> {
  if (commits.length === 0) return;
  const { writes, chainBroken } = byRun(commits);
  if (chainBroken) {
    const stored = await target.pool.query<{ run_id: string; seq: number }>(`SELECT run_id, seq FROM ${target.schema}.runs WHERE run_id = ANY($1)`, [
      writes.map((w) => w.first.run.runId),
    ]);
    const seqOf = new Map(stored.rows.map((r) => [r.run_id, r.seq]));
    throw findConflicts(commits, (runId) => seqOf.get(runId))!;
  }
  const query = { name: `commit_steps ${target.schema}`, text: callText(target.schema) };
  const event = commits.find((c) => c.event)?.event;
  const witness = event ? { runId: event.runId, seq: event.seq } : { runId: writes[0]!.first.run.runId };
  const runs = writes.map((w) => ({ runId: w.last.run.runId, seq: w.last.run.seq }));

  // A commit that certainly did not commit (its connection was lost before the statement could take
  // effect: an idle connection that died unnoticed) is tried once more on a fresh connection.
  let lost: StoreUnavailableError | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    const client = await target.connect();
    const commitId = BigInt.asIntN(64, randomBytes(8).readBigUInt64BE()).toString();
    let backend: Backend | undefined;
    try {
      backend = await target.backendOf(client);
      await client.query({ ...query, values: parameters(commitId, writes, commits) });
      client.release();
      return;
    } catch (error) {
      if (!isConnectionLoss(error)) {
        // The server answered: the statement, and so its transaction, was rolled back.
        client.release();
        if (error instanceof pg.DatabaseError && error.code === COMMIT_REFUSED) throw refusalError(JSON.parse(error.detail!) as Refusal[], writes);
        throw error;
      }
      client.release(error as Error); // broken: the pool replaces it
      if (!backend) {
        // Lost while asking who the backend is: the commit was never sent.
        lost = new StoreUnavailableError('postgres', target.location, `${(error as Error).message}; the commit was not sent`);
        continue;
      }
      try {
        return await settleLostCommit(target, { backend, commitId, witness, failure: error as Error, runs });
      } catch (unsettled) {
        if (!(unsettled instanceof StoreUnavailableError)) throw unsettled;
        lost = unsettled;
      }
    }
  }
  throw lost!;
}
