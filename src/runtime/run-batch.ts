/** The pieces of a hosted run's durable send: what is queued, what a batch applied, and the commit of one step. */
import type { AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import type { Commit, CommitLease, EventRecord, OwnerInfo, StoredRun } from '../stores/store.js';
import { currentStateName } from '../graph/state-name.js';
import type { SendOptions } from '../actor-contract/run-handle.js';
import type { OwnedEvent } from './event-shape.js';
import { LazySnapshotRow } from './lazy-snapshot-row.js';
import { toRunSnapshot, type RunSnapshot } from './run-snapshot.js';
import { nextDeadline } from './timers/next-deadline.js';
import type { ArmedDelays } from './timers/after-delays.js';

/** Events applied per batch at most: bounds the memory a flood of sends can pin before commit. */
export const MAX_BATCH = 1024;

export interface Queued {
  event: OwnedEvent;
  options: SendOptions;
  /** Undefined for fire-and-forget sends: no promise, no snapshot view to build. */
  resolve: ((snapshot: RunSnapshot) => void) | undefined;
  /** Undefined for sends whose refusal goes to the runtime's error channel. */
  reject: ((error: Error) => void) | undefined;
}

/** The events applied together, and how many of them have been answered, so a late failure answers only the rest. */
export interface Batch {
  readonly items: Queued[];
  answered: number;
}

/** An answer that needs no commit: the result of an earlier event with the same key, or a dropped event's unchanged run. */
export class Answer {
  /** `ofBatch`: it repeats the key of a step of the same batch, so it stands only if that batch commits. */
  constructor(
    readonly snapshot: RunSnapshot,
    readonly ofBatch = false,
  ) {}
}

/**
 * What applying a queued event gave. Kept in an array of the batch's own rather than on the queued
 * item: items queued by a burst of sends are old by the time they are applied, and an old object
 * pointing at a step would keep the step (and its XState snapshot) alive through every minor GC.
 */
export type Outcome = Commit | Error | Answer;

/** A batch as it is applied in memory: what each event gave, the commits to make, and the lease they are fenced by. */
export class AppliedBatch {
  readonly outcomes: Outcome[] = [];
  readonly commits: Commit[] = [];
  /** The steps by idempotency key, once one has a key. */
  #byKey: Map<string, Commit> | undefined;

  constructor(
    readonly lease: CommitLease | undefined,
    /** The run's row after the last step applied (the committed one before the first). */
    public last: StoredRun,
  ) {}

  /** The answer of an earlier step of this batch with the same key, which stands only if the batch commits. */
  answerFor(key: string): Answer | undefined {
    const step = this.#byKey?.get(key);
    return step && new Answer(step.result as RunSnapshot, true);
  }

  answered(answer: Answer): void {
    this.outcomes.push(answer);
  }

  /** What applying an event gave: a step to commit, why it was refused, or undefined when it was dropped. */
  applied(key: string | undefined, outcome: Commit | Error | undefined): void {
    if (outcome === undefined) return void this.outcomes.push(new Answer(toRunSnapshot(this.last))); // dropped: not accepted, and allowed not to be
    this.outcomes.push(outcome);
    if (outcome instanceof Error) return;
    if (key !== undefined) (this.#byKey ??= new Map()).set(key, outcome);
    this.commits.push(outcome);
    this.last = outcome.run;
  }
}

/** The commit of one step: `item` took the run from `last` to `after`, under `lease`, with the run's index keys then. */
export function stepCommit(
  item: Queued,
  last: StoredRun,
  logic: AnyStateMachine,
  after: AnyMachineSnapshot,
  by: {
    owner: OwnerInfo;
    lease: CommitLease | undefined;
    keys: Record<string, number | null> | undefined;
    /** The `after` delays armed after the step, kept with its snapshot (after-delays.ts). */
    armedDelays: ArmedDelays | undefined;
  },
): Commit {
  const { event, options } = item;
  const seq = last.seq + 1;
  const state = currentStateName(after);
  const run = new LazySnapshotRow(last, logic, after, {
    status: after.status,
    state,
    seq,
    owner: by.owner,
    updatedAt: event.at,
    armedDelays: by.armedDelays,
  });
  const record: EventRecord = { runId: last.runId, seq, event, at: event.at, before: last.state, after: state };
  if (
    options.actor !== undefined ||
    options.reason !== undefined ||
    options.credential !== undefined ||
    options.idempotencyKey !== undefined
  ) {
    const extra = record as { actor?: string; reason?: string; credential?: string; idempotencyKey?: string };
    if (options.actor !== undefined) extra.actor = options.actor;
    if (options.reason !== undefined) extra.reason = options.reason;
    if (options.credential !== undefined) extra.credential = options.credential;
    if (options.idempotencyKey !== undefined) extra.idempotencyKey = options.idempotencyKey;
  }
  const commit: { -readonly [K in keyof Commit]: Commit[K] } = { run, event: record, expectedSeq: last.seq };
  if (options.idempotencyKey !== undefined) commit.result = toRunSnapshot(run);
  if (by.keys) commit.keys = by.keys;
  commit.wakeAt = nextDeadline(after);
  if (by.lease) commit.lease = by.lease;
  return commit;
}
