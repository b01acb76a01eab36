import { StatewrightError } from '../errors.js';

/** The process that committed to a run, so a restart can tell a dead owner from a live one. */
export interface OwnerInfo {
  readonly id: string;
  readonly pid: number;
  /** The process start time as the kernel reports it: tells a reused pid from the original. */
  readonly pidStart: string;
  readonly host: string;
}

/** A run as stored: the latest committed snapshot and what is needed to list, restore and replay it. */
export interface StoredRun {
  readonly runId: string;
  readonly machine: string;
  /** The lifecycle version the snapshot was written by; restoring under another version needs a migration. */
  readonly version: number;
  /** XState's snapshot status: active, done, error or stopped. */
  readonly status: string;
  /** The state the run rests in ("running", "work.check"). */
  readonly state: string;
  /**
   * The persisted XState snapshot, as `actor.getPersistedSnapshot()` gives it, with, when the run
   * has `after` delays armed, when each is due beside XState's fields (`armedDelays`, which XState
   * does not keep and ignores on restore: src/runtime/timers/after-delays.ts).
   */
  readonly snapshot: unknown;
  readonly input: unknown;
  /** How many events have been applied; 0 right after start. Every commit raises it by one. */
  readonly seq: number;
  readonly owner: OwnerInfo | undefined;
  readonly createdAt: number;
  readonly updatedAt: number;
  /**
   * The run's next deadline (ms since the epoch, the runtime's clock), as its last commit stored it
   * in the timer index (`Commit.wakeAt`); absent when it has none or the store keeps no index.
   */
  readonly wakeAt?: number;
  /** Which host holds the run, on a store with leases (`Store.leases`); absent when none ever did. */
  readonly lease?: RunLease;
}

/**
 * A host's hold on a run, when hosts share a store. Lease times are wall-clock ms on the hosts
 * (`Date.now()`, hosts kept in sync by NTP), not the runtime's injectable clock: they measure
 * whether a process is alive, not workflow time.
 */
export interface RunLease {
  /** The runtime owner id (`OwnerInfo.id`, `serve --host-id`) that holds or last held the run. */
  readonly holder: string;
  /**
   * held: the holder hosts it and must renew before `expiresAt`; released: let go cleanly (asleep,
   * unloaded, or closed with its actors ended): whoever wakes it applies no recovery rule;
   * handedOver: let go by a graceful stop with its actors still running, for the next holder to
   * adopt (the recovery rule is skipped, as after a hand-over).
   */
  readonly state: 'held' | 'released' | 'handedOver';
  /** Raised by one at every claim: the fencing token each commit of the holder carries. */
  readonly epoch: number;
  /** When a held lease runs out unless renewed. */
  readonly expiresAt: number;
  /** The holder's last renewal, claim or commit: its heartbeat. */
  readonly renewedAt: number;
}

/** What `storedRun` builds a run from: its fields, where `wakeAt` and `lease` may be null or missing when it has none. */
export type StoredRunFields = Omit<StoredRun, 'wakeAt' | 'lease'> & {
  readonly wakeAt?: number | null;
  readonly lease?: RunLease | undefined;
};

/**
 * The one place a `StoredRun` is put together, field by field: from a row a store read (its
 * columns named as a run's fields), or from another run (`plainRow`). `wakeAt` and `lease` are
 * there only when the run has them.
 */
export function storedRun(fields: StoredRunFields): StoredRun {
  return {
    runId: fields.runId,
    machine: fields.machine,
    version: fields.version,
    status: fields.status,
    state: fields.state,
    snapshot: fields.snapshot,
    input: fields.input,
    seq: fields.seq,
    owner: fields.owner,
    createdAt: fields.createdAt,
    updatedAt: fields.updatedAt,
    ...(fields.wakeAt !== undefined && fields.wakeAt !== null && { wakeAt: fields.wakeAt }),
    ...(fields.lease !== undefined && { lease: fields.lease }),
  };
}

/**
 * A plain copy of `run`, read field by field. A row may compute a field when it is read (the
 * runtime's rows compute `snapshot` on first read, from their prototype), so stores copy rows with
 * this, never by spreading or cloning them.
 */
export function plainRow(run: StoredRun): StoredRun {
  return storedRun(run);
}

/** One entry of the audit trail: an applied event, when, by whom, why, and the states around it. */
export interface EventRecord {
  readonly runId: string;
  readonly seq: number;
  readonly event: { type: string; [key: string]: unknown };
  readonly at: number;
  readonly actor?: string;
  readonly reason?: string;
  /**
   * Who sent it, by the credential it came with, as the host that took it names the holder
   * (`user-token`, `session:<id>`): set by that host, never from what a request says, unlike `actor`.
   * None for an event sent in-process (an actor, a timer, a command on the store itself).
   */
  readonly credential?: string;
  readonly idempotencyKey?: string;
  readonly before: string;
  readonly after: string;
}

/**
 * One atomic step of one run: the run's new row and the event that produced it (none for the
 * step that creates the run). `expectedSeq` is the seq the writer last saw: if the stored run has
 * moved on since, another writer got there first and the commit is refused.
 */
export interface Commit {
  readonly run: StoredRun;
  readonly event?: EventRecord;
  /** Kept with an idempotent event: what a repeat of its key returns. */
  readonly result?: unknown;
  /** `undefined` when the commit creates the run (which must not exist yet). */
  readonly expectedSeq: number | undefined;
  /**
   * The run's index keys after this step, as its lifecycle declares them (`Lifecycle.indexes`):
   * key name -> sort value, ascending (the runtime has already negated the keys listed newest
   * first), or null when the run is not listed under that key. Absent when the lifecycle
   * declares none. A store with indexes keeps them in the same transaction as the run's row.
   */
  readonly keys?: Readonly<Record<string, number | null>>;
  /**
   * The run's next deadline after this step (the earliest `deadline` actor its snapshot holds), or
   * null when it has none; absent counts as null. A store with a timer index (every store with
   * `leases`) keeps it in the same transaction as the row, so due runs are found by an index read.
   */
  readonly wakeAt?: number | null;
  /** The writer's lease, on a store with `leases`: the commit is fenced by it. Absent: not fenced (one host). */
  readonly lease?: CommitLease;
}

/**
 * The lease a commit is written under. Updating a run, the store refuses the whole batch with
 * `LeaseLostError` unless the stored lease is held by `holder` at `epoch`, and renews it
 * (`expiresAt`, `renewedAt` = `now`); a store may skip that renewal while the stored lease has
 * more than two thirds of its time (`expiresAt - now`) left (SQLite does: the heartbeat, `renew`,
 * keeps the lease anyway, and a step then writes no more than its event). Creating a run, it
 * stores the lease as held by `holder` at `epoch`.
 */
export interface CommitLease {
  readonly holder: string;
  readonly epoch: number;
  readonly expiresAt: number;
  /** Wall-clock now (`renewedAt`). */
  readonly now: number;
  /**
   * Set when the commit also claims the run (a wake of one write: the run was read, not claimed):
   * the epoch of the released lease the writer read. The store then writes the run only while it is
   * active and its lease still `released` at that epoch, and stores the lease held by `holder` at
   * `epoch` (`claims + 1`) with the step. A run already held by `holder` at `epoch` (the writer's own
   * sweep claimed it meanwhile, or an earlier step of the batch did) is written as any fenced step.
   * Anything else (another host claimed it in between): `LeaseLostError`, nothing applied.
   */
  readonly claims?: number;
}

/** What a claim took: the run as stored after it, and its lease as it was before. */
export interface Claim {
  /** The run with its new lease (held by the claimer at the raised epoch). */
  readonly run: StoredRun;
  /**
   * The lease before the claim; undefined when the run had none (stored before leases). A `held`
   * one means its holder died or was cut off: the lifecycle's recovery rule applies, once.
   */
  readonly previous: RunLease | undefined;
  /**
   * The run's owner before the claim (`StoredRun.owner`: who last committed to it or claimed it),
   * for the recovery rule, which names the process that is gone. Optional: a store that does not
   * give it leaves the runtime only `previous.holder` to name.
   */
  readonly previousOwner?: OwnerInfo;
}

/**
 * Leases and the timer index: how several hosts (processes or machines) share one store, and how
 * a host finds the runs it must wake without holding them all in memory. Every method is one
 * statement (one transaction) however many runs it touches.
 */
/** How a claim of a run an event is sent to is made (`StoreLeases.claimRun`): wall-clock `now`, the lease's TTL, the holders found dead. */
export interface ClaimOptions {
  now: number;
  ttlMs: number;
  takeFrom?: readonly string[];
}

export interface StoreLeases {
  /**
   * The sweep: claims for `holder` up to `limit` active runs that are (a) held with `expiresAt <= now`,
   * (b) held by one of `takeFrom` (holders the caller found dead: a process of this machine that
   * has exited), or (c) not held (released or handed over, or never leased) with `wakeAt <= dueBy`
   * or handed over. Each run is claimed by one caller only, even when hosts sweep at once
   * (Postgres: `FOR UPDATE SKIP LOCKED`; SQLite: one write transaction). Each claimed run's epoch is
   * raised by one, its lease held by `holder` until `now + ttlMs`, its `owner` set to `owner`.
   * A run in `passOver` (one the caller cannot host: it re-reads those itself, now and then, to see
   * whether someone has moved them on) is left as it is, and takes no place within `limit`.
   */
  claimDue(
    owner: OwnerInfo,
    options: {
      now: number;
      dueBy: number;
      ttlMs: number;
      limit: number;
      takeFrom?: readonly string[];
      passOver?: readonly string[];
    },
  ): Promise<Claim[]>;
  /**
   * Claims one run (an event for a run not in memory here): taken if it is not held, or held with
   * `expiresAt <= now`, or held by `owner.id` itself (a previous process of the same host id), or
   * by one of `takeFrom`, or whoever holds it once it has ended (nothing is written under its lease
   * any more, and its holder may have died between its last commit and letting go). Held by another
   * live holder: `RunHeldError`. Resolves undefined for an unknown run.
   */
  claimRun(runId: string, owner: OwnerInfo, options: ClaimOptions): Promise<Claim | undefined>;
  /**
   * `claimRun` for several runs in one statement: what a host sends when events wake many sleeping
   * runs at once (`GroupClaimer`). Each run's answer, in the order asked: its claim, undefined for
   * an unknown run, or the error `claimRun` would throw for it (`RunHeldError`, or a failure of that
   * run alone: the runs claimed are never left unsaid). Rejects only when no run was claimed.
   * Optional: without it, each run is claimed alone.
   */
  claimRuns?(
    runIds: readonly string[],
    owner: OwnerInfo,
    options: ClaimOptions,
  ): Promise<Array<Claim | Error | undefined>>;
  /** Extends every lease `holder` still holds at the given epoch to `now + ttlMs`; resolves with the run ids it no longer holds. */
  renew(
    holder: string,
    leases: ReadonlyArray<{ readonly runId: string; readonly epoch: number }>,
    options: { now: number; ttlMs: number },
  ): Promise<string[]>;
  /**
   * Lets go of leases `holder` holds at the given epoch (others are left alone), storing each run's
   * next deadline: `released`, or `handedOver` (its actors run on; another host claims it at its next sweep).
   */
  release(
    holder: string,
    leases: ReadonlyArray<{ readonly runId: string; readonly epoch: number; readonly wakeAt: number | null }>,
    options: { now: number; handedOver: boolean },
  ): Promise<void>;
  /** The distinct owners (`StoredRun.owner`) of the runs held now, with how many each holds: for telling dead local processes (`takeFrom`). */
  holders(): Promise<Array<{ readonly owner: OwnerInfo; readonly runs: number }>>;
}

export interface RunFilter {
  machine?: string;
  /** XState snapshot status: active, done, error, stopped. */
  status?: string;
  /** The state a run rests in. */
  state?: string;
}

/** What a filter, a search and the order of pages read of a run. */
export type ListedRun = Pick<StoredRun, 'runId' | 'machine' | 'status' | 'state' | 'createdAt'>;

/** Whether `run` is one `filter` asks for: the stores that filter in memory (memory, json-file) ask this. */
export function matches(run: ListedRun, filter: RunFilter): boolean {
  return (
    (filter.machine === undefined || run.machine === filter.machine) &&
    (filter.status === undefined || run.status === filter.status) &&
    (filter.state === undefined || run.state === filter.state)
  );
}

/**
 * Where a page of runs goes on from: the run it ended with, by the two fields the newest-first
 * order sorts on. Runs started later sort before it, so a cursor never skips or repeats a run that
 * existed when the first page was read, however many start meanwhile.
 */
export interface RunCursor {
  readonly createdAt: number;
  readonly runId: string;
}

/** What `Store.listPage` is asked for: a filter, a search, how many and where to go on from. */
export interface RunPageQuery extends RunFilter {
  /** Part of the run id; the letters A-Z match in either case, every other character as it is. '' finds every run. */
  q?: string;
  /** The most runs in the page: a whole number, at least 1. */
  limit: number;
  /** Go on after this run (the `next` of the page before); absent: from the newest. */
  after?: RunCursor;
}

/** One page of runs, newest first, and where the next one goes on from (null: this is the last). */
export interface RunPage<R = StoredRun> {
  readonly runs: R[];
  readonly next: RunCursor | null;
}

/** How many runs of one lifecycle rest in one state with one status: a group of `RunCounts.groups`. */
export interface RunGroup {
  readonly machine: string;
  readonly status: string;
  readonly state: string;
  readonly runs: number;
}

/**
 * How many runs rest in each state (`Store.countByState`), and their sum; `groups` says the same by
 * lifecycle, status and state, so a reader can count by what a state means in its lifecycle (the
 * live view's counts by the words of its status column). `counts` and `total` are derived from it.
 */
export interface RunCounts {
  readonly counts: Record<string, number>;
  readonly total: number;
  readonly groups: readonly RunGroup[];
}

/**
 * The order of run pages: newest first (`createdAt` descending), and among runs started in the same
 * millisecond, by run id descending, compared by code point: the order of UTF-8 bytes, which is
 * SQLite's BINARY and Postgres's "C" collation, so every store pages alike.
 */
export function newestFirst(a: RunCursor, b: RunCursor): number {
  return b.createdAt - a.createdAt || compareRunIds(b.runId, a.runId);
}

/** Run ids in code point order (JavaScript's `<` compares UTF-16 units, which puts U+E000-U+FFFF after astral characters). */
export function compareRunIds(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** A UTF-16 unit ranked as the code points it starts: surrogates (astral characters) after U+E000-U+FFFF. */
const codePointRank = (unit: number) =>
  unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit;

/** `text` with the letters A-Z lower-cased and nothing else changed: how `q` ignores case in every store. */
const asciiLower = (text: string) => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/** Whether `runId` holds `q` (`RunPageQuery.q`). */
export function runIdHas(runId: string, q: string | undefined): boolean {
  return !q || asciiLower(runId).includes(asciiLower(q));
}

/** The LIKE pattern of run ids holding `q`, with `\` as its escape (the SQL stores' `q`). */
export const likeContaining = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * A page taken from runs read whole (the stores that filter in memory: memory, json-file): the
 * runs `query` asks for, newest first, `limit` of them, each read out with `read` (only the page's).
 */
export function pageOf<R extends ListedRun, O = R>(
  runs: Iterable<R>,
  query: RunPageQuery,
  read: (run: R) => O,
): RunPage<O> {
  const { after, q } = query;
  const found: R[] = [];
  for (const run of runs)
    if (matches(run, query) && runIdHas(run.runId, q) && (!after || newestFirst(after, run) < 0)) found.push(run);
  found.sort(newestFirst);
  const page = found.slice(0, query.limit);
  const last = page.at(-1);
  return {
    runs: page.map(read),
    next: found.length > page.length && last ? { createdAt: last.createdAt, runId: last.runId } : null,
  };
}

/** The counts of `groups` (each group once), by state and in all: what `RunCounts` derives from its groups. */
export function countsOf(groups: readonly RunGroup[]): RunCounts {
  const counts: Record<string, number> = {};
  let total = 0;
  for (const { state, runs } of groups) {
    counts[state] = (counts[state] ?? 0) + runs;
    total += runs;
  }
  return { counts, total, groups };
}

/** Runs counted by lifecycle, status and state (the stores that filter in memory). */
export function countOf(runs: Iterable<ListedRun>, filter: RunFilter): RunCounts {
  const groups = new Map<string, { machine: string; status: string; state: string; runs: number }>();
  for (const run of runs) {
    if (!matches(run, filter)) continue;
    const key = JSON.stringify([run.machine, run.status, run.state]);
    const group = groups.get(key);
    if (group) group.runs++;
    else groups.set(key, { machine: run.machine, status: run.status, state: run.state, runs: 1 });
  }
  return countsOf([...groups.values()]);
}

/**
 * Persistence behind one interface. Every implementation passes the same conformance suite
 * (test/stores/) and the same crash tests.
 */
export interface Store {
  readonly kind: string;
  /**
   * Makes every commit durable in one atomic step: when the promise resolves all of them survive
   * any crash; when it rejects none was applied, except with `CommitOutcomeUnknownError` (a store
   * on a server lost the reply to its COMMIT and could not find out in time): then either all or
   * none was, and the caller reads the runs again to know. Refuses the whole batch with `CommitConflictError`
   * when any commit's `expectedSeq` is stale. The commits are handed over: a store may keep their
   * objects as they are (the memory store does), so the caller must not change them afterwards.
   * What a store returns from any read is the caller's own to change.
   */
  commit(commits: readonly Commit[]): Promise<void>;
  /**
   * Optional: how many `commit` calls the store does well at once (a server store: one per pooled
   * connection, each its own transaction). Callers never have two commits of one run in flight, so
   * concurrent batches touch distinct runs. Absent means one at a time.
   */
  readonly commitsAtOnce?: number;
  load(runId: string): Promise<StoredRun | undefined>;
  list(filter?: RunFilter): Promise<StoredRun[]>;
  /**
   * One page of the runs `query` asks for, newest first (see `newestFirst`), read from an index on
   * SQLite and Postgres, so a page costs the same however many runs the store holds (a filter on
   * state or a search reads on until the page is full). `next` is set when more runs follow.
   */
  listPage(query: RunPageQuery): Promise<RunPage>;
  /**
   * How many of the runs `filter` asks for rest in each state, by lifecycle and status too
   * (`RunCounts.groups`): counted by the store, exact at any size.
   */
  countByState(filter?: RunFilter): Promise<RunCounts>;
  /** The audit trail of a run, in seq order. */
  history(runId: string): Promise<EventRecord[]>;
  /** The result stored with the event of `runId` that carried `key`, if there was one. */
  findIdempotent(runId: string, key: string): Promise<{ seq: number; result: unknown } | undefined>;
  /**
   * Optional: the runs of `machine` listed under index key `key` (see `Commit.keys`), by sort
   * value then run id, read from an index rather than by loading every run. Stores without it
   * are queried by scanning (`Runtime.listByIndex` does that for them).
   */
  listByIndex?(machine: string, key: string, options?: { limit?: number }): Promise<StoredRun[]>;
  /**
   * Optional, with `listByIndex`: makes the stored keys of `machine`'s runs those of the declaration
   * named `fingerprint`. If the store last indexed the machine under another fingerprint (or never:
   * runs stored before keys existed), it recomputes every run's keys with `keysOf` in one
   * transaction; otherwise it does nothing. Resolves with the number of runs indexed.
   */
  syncIndex?(
    machine: string,
    fingerprint: string,
    keysOf: (run: StoredRun) => Readonly<Record<string, number | null>>,
  ): Promise<number>;
  /**
   * Optional: checks the store's files as a whole, beyond what each read checks (on SQLite,
   * SQLite's integrity_check, which also finds an index that no longer matches its table).
   * Resolves with the problems found, none when it is sound; writes nothing. `statewright verify` runs it.
   */
  checkIntegrity?(): Promise<string[]>;
  /** Optional: leases and the timer index (memory, SQLite, Postgres). Without it a store has one host, which keeps its runs in memory. */
  readonly leases?: StoreLeases;
  close(): Promise<void>;
}

/** Another writer committed to these runs first; nothing in the batch was applied. */
export class CommitConflictError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'CommitConflictError';
  constructor(
    readonly conflicts: ReadonlyArray<{
      runId: string;
      expectedSeq: number | undefined;
      storedSeq: number | undefined;
    }>,
  ) {
    super(
      `Commit refused: ${conflicts
        .map((c) =>
          c.expectedSeq === undefined
            ? `run '${c.runId}' already exists`
            : c.storedSeq === undefined
              ? `run '${c.runId}' does not exist`
              : `run '${c.runId}' is at seq ${c.storedSeq}, the writer expected ${c.expectedSeq}`,
        )
        .join('; ')}. Another writer changed it; reload the run and try again.`,
    );
  }
}

/** Checks a batch against the stored seqs; the stores call it inside their transaction. */
export function findConflicts(
  commits: readonly Commit[],
  storedSeq: (runId: string) => number | undefined,
): CommitConflictError | undefined {
  const seen = new Map<string, number>();
  const conflicts: Array<{ runId: string; expectedSeq: number | undefined; storedSeq: number | undefined }> = [];
  for (const commit of commits) {
    const current = seen.has(commit.run.runId) ? seen.get(commit.run.runId) : storedSeq(commit.run.runId);
    if (current !== commit.expectedSeq)
      conflicts.push({ runId: commit.run.runId, expectedSeq: commit.expectedSeq, storedSeq: current });
    seen.set(commit.run.runId, commit.run.seq);
  }
  return conflicts.length ? new CommitConflictError(conflicts) : undefined;
}

/** The writer no longer holds a run it commits to: another host claimed it (its lease ran out). Nothing in the batch was applied. */
export class LeaseLostError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'LeaseLostError';
  constructor(
    readonly lost: ReadonlyArray<{ runId: string; holder: string; epoch: number; stored: RunLease | undefined }>,
  ) {
    super(
      `Commit refused: ${lost
        .map(
          (l) =>
            `run '${l.runId}' is ${l.stored ? `${l.stored.state} by '${l.stored.holder}' at epoch ${l.stored.epoch}` : 'not leased'}, not held by '${l.holder}' at epoch ${l.epoch}`,
        )
        .join('; ')}. This host lost the run (it paused or was cut off past its lease); the holder hosts it now.`,
    );
  }
}

/** A run another live host holds: send its events to that host, or wait for its lease to run out. */
export class RunHeldError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'RunHeldError';
  constructor(
    readonly runId: string,
    readonly lease: RunLease,
  ) {
    super(
      `Run '${runId}' is hosted by '${lease.holder}' (epoch ${lease.epoch}, lease until ${new Date(lease.expiresAt).toISOString()}): send its events to that host, or retry once its lease runs out.`,
    );
  }
}
