/**
 * A batch of commits on Postgres in one round trip: one statement in autocommit, so it is its own
 * transaction and no BEGIN or COMMIT is sent. One step of one run is a plain UPDATE with its event's
 * INSERT; any other batch one call of the schema's `commit_steps` function (see postgres-schema.ts).
 * The seq check and the lease fence are inside the statement, and a refused batch writes nothing;
 * what is stored of each refused run makes the refusal a `LeaseLostError` or a `CommitConflictError`.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { isConnectionLoss } from './postgres-connection-loss.js';
import { settleLostCommit, type Backend, type OutcomeSource } from './postgres-commit-outcome.js';
import { COMMIT_REFUSED } from './postgres-schema.js';
import { callCommitSteps, commitOneStep, storedSeqAndLease, storedSeqs } from './statements.js';
import {
  CommitConflictError,
  findConflicts,
  LeaseLostError,
  type Commit,
  type CommitLease,
  type RunLease,
} from '../store.js';
import { StoreUnavailableError } from '../store-errors.js';
import { ownerJsonCache } from '../owner-json.js';

export interface CommitTarget extends OutcomeSource {
  /** A pooled connection (the kept one when it is free); `StoreUnavailableError` when none can be had. */
  connect(): pg.PoolClient | Promise<pg.PoolClient>;
  /** Done with a connection from `connect`; `error`: it is broken, and the pool replaces it. */
  release(client: pg.PoolClient, error?: Error): void;
  /** A read on any pooled connection; a lost connection is `StoreUnavailableError`. */
  read<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R[]>;
  /** The backend a pooled connection talks to (asked the first time, then known, with no promise). */
  backendOf(client: pg.PoolClient): Backend | Promise<Backend>;
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
    lease_claims: lease?.claims,
  }));
  const events = commits.flatMap(({ event: e, result }) =>
    e
      ? [
          {
            run_id: e.runId,
            seq: e.seq,
            event: e.event,
            at: e.at,
            actor: e.actor,
            reason: e.reason,
            credential: e.credential,
            idempotency_key: e.idempotencyKey,
            before_state: e.before,
            after_state: e.after,
            result,
          },
        ]
      : [],
  );
  return [commitId, JSON.stringify(runs), JSON.stringify(events)];
}

/** A runtime commits under one owner: its JSON made once. */
const ownerJson = ownerJsonCache();
const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

function stepParameters(commitId: string, { run, event, result, expectedSeq, wakeAt, lease }: Commit): unknown[] {
  return [
    commitId,
    run.runId,
    run.version,
    run.status,
    run.state,
    run.seq,
    JSON.stringify(run.snapshot),
    ownerJson(run.owner),
    run.updatedAt,
    wakeAt ?? null,
    expectedSeq,
    lease?.holder ?? null,
    lease?.epoch ?? null,
    lease?.expiresAt ?? null,
    lease?.now ?? null,
    event?.seq ?? null,
    json(event?.event),
    event?.at ?? null,
    event?.actor ?? null,
    event?.reason ?? null,
    event?.idempotencyKey ?? null,
    event?.before ?? null,
    event?.after ?? null,
    json(result),
    lease?.claims ?? null,
    event?.credential ?? null,
  ];
}

/** The refusal as the typed error it is: a lost lease wins over a stale seq, since the writer must stop hosting the run. */
function refusalError(refused: Refusal[], writes: RunWrite[]): LeaseLostError | CommitConflictError {
  const writeOf = new Map(writes.map((w) => [w.first.run.runId, w]));
  const lost: Array<{ runId: string; holder: string; epoch: number; stored: RunLease | undefined }> = [];
  const conflicts: Array<{ runId: string; expectedSeq: number | undefined; storedSeq: number | undefined }> = [];
  for (const r of refused) {
    const write = writeOf.get(r.runId)!;
    const lease = write.lease;
    const fenced = lease !== undefined && write.first.expectedSeq !== undefined && r.storedSeq !== null;
    // Not held by the writer: lost (a claiming write too: another host took the run it had read).
    if (fenced && !(r.lease?.state === 'held' && r.lease.holder === lease.holder && r.lease.epoch === lease.epoch)) {
      lost.push({ runId: r.runId, holder: lease.holder, epoch: lease.epoch, stored: r.lease ?? undefined });
    } else
      conflicts.push({ runId: r.runId, expectedSeq: write.first.expectedSeq, storedSeq: r.storedSeq ?? undefined });
  }
  return lost.length ? new LeaseLostError(lost) : new CommitConflictError(conflicts);
}

/** A refused step wrote nothing: what is stored says which refusal it is (a second round trip, on refusals only). */
async function stepRefusal(target: CommitTarget, writes: RunWrite[]): Promise<LeaseLostError | CommitConflictError> {
  const runId = writes[0]!.first.run.runId;
  const [row] = await target.read<{ seq: number; lease: RunLease | null }>(storedSeqAndLease(target.schema), [runId]);
  return refusalError([{ runId, storedSeq: row?.seq ?? null, lease: row?.lease ?? null }], writes);
}

/**
 * Commit ids, which find a commit's rows after a lost reply (postgres-commit-outcome.ts): unique
 * among all writers, so a random 64-bit start counted on from there. Two processes' ids meet only
 * if their starts fall within as many commits of each other, and asking the system for eight random
 * bytes at every commit was a measurable share of the client's time per step.
 */
let lastCommitId = BigInt.asIntN(64, randomBytes(8).readBigUInt64BE());
const newCommitId = (): string => (lastCommitId = BigInt.asIntN(64, lastCommitId + 1n)).toString();

/** Each schema's two commit statements, built once: a step's text is long, and a lone run commits at every event. */
const statements = new Map<string, Record<'step' | 'call', { name: string; text: string }>>();
function statementsOf(schema: string) {
  let built = statements.get(schema);
  if (!built) {
    built = {
      step: { name: `commit_step ${schema}`, text: commitOneStep(schema) },
      call: { name: `commit_steps ${schema}`, text: callCommitSteps(schema) },
    };
    statements.set(schema, built);
  }
  return built;
}

/** Postgres's codes for a statement it rolled back to break a lock cycle or a serialization conflict: safe to run again. */
const ROLLED_BACK_BY_CONFLICT = new Set(['40P01', '40001']);

/**
 * Commits the batch in one statement. A deadlock (a multi-run batch and a renewal locking rows in
 * different orders) rolls the whole statement back, so it is tried again, up to three times. Not
 * async: a lone run commits at every event, and each promise layer is a hop of its own.
 */
export function commitSteps(target: CommitTarget, commits: readonly Commit[]): Promise<void> {
  return attemptCommit(target, commits, 1);
}

function attemptCommit(target: CommitTarget, commits: readonly Commit[], attempt: number): Promise<void> {
  return commitStepsOnce(target, commits).catch((error: unknown) => {
    if (attempt < 3 && error instanceof pg.DatabaseError && ROLLED_BACK_BY_CONFLICT.has(error.code ?? ''))
      return attemptCommit(target, commits, attempt + 1);
    throw error;
  });
}

async function commitStepsOnce(target: CommitTarget, commits: readonly Commit[]): Promise<void> {
  if (commits.length === 0) return;
  const { writes, chainBroken } = byRun(commits);
  if (chainBroken) {
    const stored = await target.read<{ run_id: string; seq: number }>(storedSeqs(target.schema), [
      writes.map((w) => w.first.run.runId),
    ]);
    const seqOf = new Map(stored.map((r) => [r.run_id, r.seq]));
    throw findConflicts(commits, (runId) => seqOf.get(runId))!;
  }
  const single = commits.length === 1 && commits[0]!.expectedSeq !== undefined && commits[0]!.event !== undefined;
  const query = statementsOf(target.schema)[single ? 'step' : 'call'];

  // A commit that certainly did not commit (its connection was lost before the statement could take
  // effect: an idle connection that died unnoticed) is tried once more on a fresh connection.
  let lost: StoreUnavailableError | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    const connecting = target.connect();
    const client = connecting instanceof Promise ? await connecting : connecting;
    const commitId = newCommitId();
    let backend: Backend | undefined;
    let written: number | null | undefined;
    try {
      const asking = target.backendOf(client);
      backend = asking instanceof Promise ? await asking : asking;
      const values = single ? stepParameters(commitId, commits[0]!) : parameters(commitId, writes, commits);
      const result = await client.query<{ written?: number }>({ ...query, values });
      // One step: the events it inserted (none when refused); a batch: what `commit_steps` says.
      written = single ? result.rowCount : result.rows[0]!.written;
      target.release(client);
    } catch (error) {
      if (!isConnectionLoss(error)) {
        // The server answered: the statement, and so its transaction, was rolled back.
        target.release(client);
        if (error instanceof pg.DatabaseError && error.code === COMMIT_REFUSED)
          throw refusalError(JSON.parse(error.detail!) as Refusal[], writes);
        throw error;
      }
      target.release(client, error as Error); // broken: the pool replaces it
      if (!backend) {
        // Lost while asking who the backend is: the commit was never sent.
        lost = new StoreUnavailableError(
          'postgres',
          target.location,
          `${(error as Error).message}; the commit was not sent`,
        );
        continue;
      }
      const event = commits.find((c) => c.event)?.event;
      const witness = event ? { runId: event.runId, seq: event.seq } : { runId: writes[0]!.first.run.runId };
      const runs = writes.map((w) => ({ runId: w.last.run.runId, seq: w.last.run.seq }));
      try {
        return await settleLostCommit(target, { backend, commitId, witness, failure: error as Error, runs });
      } catch (unsettled) {
        if (!(unsettled instanceof StoreUnavailableError)) throw unsettled;
        lost = unsettled;
        continue;
      }
    }
    if (written === 0) throw await stepRefusal(target, writes);
    return;
  }
  throw lost!;
}
