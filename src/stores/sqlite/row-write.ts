/**
 * How a SQLite commit writes a run's row in `runs` after appending the step's event: a pure choice
 * from the facts of the step, which the commit (sqlite-commit.ts) carries out with the statement of
 * the same name (statements.ts).
 *
 * The row is a checkpoint: a run's newest event carries its current row, so the `runs` row may lag
 * (see sqlite-schema.ts). It is brought up to date only when it must be, since a row brought up to
 * date mostly grows (its snapshot from many steps back gives way to today's) and a row that no
 * longer fits splits its page.
 */

/**
 * How many commits a run's row in `runs` may lag behind its log before a commit brings it up to
 * date (its status and version never lag). Reading a run follows at most this many links.
 */
export const CHECKPOINT_EVERY = 32;

/** What a commit knows of one step once its event is appended. */
export interface StepFacts {
  /** The step created the run: its row was just inserted as the step left it. */
  readonly created: boolean;
  /** The step appended an event (every step but a creation does). */
  readonly appended: boolean;
  /** The run had no event before this step: its chain of events starts from the row. */
  readonly firstEvent: boolean;
  /** The step changes the run's status or version, which the row always holds current. */
  readonly statusChanged: boolean;
  /** The step's owner is not the one the row holds (also always current). */
  readonly ownerChanged: boolean;
  /** How many commits the row's checkpoint is behind the step. */
  readonly lag: number;
  /** The step also claims the run (`CommitLease.claims`): the lease it takes goes into the row. */
  readonly claims: boolean;
}

/**
 * - 'keep': the row stays as it is (the step lives in its event);
 * - 'checkpoint': the row brought up to date, its status and version staying (their indexes untouched);
 * - 'checkpoint and status': the same, with the new status or version;
 * - 'lease': the claim's lease and the owner only, the checkpoint staying;
 * - 'checkpoint and lease', 'checkpoint, status and lease': a checkpoint and the claim's lease in one write.
 */
export type RowWrite =
  | 'keep'
  | 'checkpoint'
  | 'checkpoint and status'
  | 'lease'
  | 'checkpoint and lease'
  | 'checkpoint, status and lease';

/**
 * The row is brought up to date when the run has no event to end on yet (the chain starts from
 * it), when its status, version or owner changes, or when it lags too far. A claiming step writes
 * the lease into the row in any case, and the owner with it; its checkpoint stays unless due for
 * one of the other reasons. A creation without an event leaves the row it just inserted.
 */
export function rowWrite(step: StepFacts): RowWrite {
  if (step.created && !step.appended) return 'keep';
  const checkpointDue = step.firstEvent || !step.appended || step.statusChanged || step.lag >= CHECKPOINT_EVERY;
  if (step.claims)
    return !checkpointDue ? 'lease' : step.statusChanged ? 'checkpoint, status and lease' : 'checkpoint and lease';
  if (!checkpointDue && !step.ownerChanged) return 'keep';
  return step.statusChanged ? 'checkpoint and status' : 'checkpoint';
}
