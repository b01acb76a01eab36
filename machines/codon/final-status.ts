/**
 * How a codon ends once its agent process has exited (seed-systems.md §1.3 "On exit"), as pure
 * decisions. The machine plans the final transition; the checkpoint actor commits, adds the SHA and
 * sends it; when the commit fails it sends `checkpointFailed(...)` of the plan instead.
 */
import type { ActiveCodonStatus, FailureReason, PlannedTransition } from './types.js';

export interface AgentExit {
  /** null when the process was killed by a signal, or when it was adopted and its status is unknown. */
  code: number | null;
  signal: string | null;
  reason: string;
}

/** Why the machine asked the agent to stop, if it did. */
export interface StopRequest {
  /** `upstream`: the model API failed at the wire too often in a row (`reason` is its cause). */
  kind: 'skip' | 'force' | 'budget' | 'timeout' | 'upstream';
  reason: string;
  /** The codon's state when the request came. */
  during: ActiveCodonStatus;
}

export interface ExitFacts {
  exit: AgentExit;
  /** The result message, if one arrived, with an error result's text. */
  result?: { isError: boolean; text?: string };
  stop?: StopRequest;
  /** The running cost reached the budget (by the result's cost too). */
  overBudget?: boolean;
  /** The upstream's cause, when the last news from the wire was a failure. */
  upstream?: string;
}

/**
 * An adopted process is not our child, so its exit status is unknown (code and signal null); with
 * no signal seen, its own result message is the best evidence of how it ended.
 */
function exitedCleanly(exit: AgentExit): boolean {
  return exit.code === 0 || (exit.code === null && exit.signal === null);
}

function failure(type: FailureReason['type'], retriable: boolean, message: string): FailureReason {
  return { type, retriable, message };
}

/**
 * The final transition, in the source's priority order: force-stop fails; a clean exit with a
 * successful result completes (with `budgetExceeded` when its cost crossed the budget); a budget stop completes with `budgetExceeded`; a skip without a
 * result skips; a timeout or any other exit fails (a clean exit without a result too).
 */
export function decideFinalTransition(from: ActiveCodonStatus, facts: ExitFacts): PlannedTransition {
  const { exit, result, stop, overBudget, upstream } = facts;
  const exitCode = exit.code ?? -1;
  const failed = (reason: FailureReason): PlannedTransition => ({
    from,
    to: 'failed',
    metadata: { exitCode, failureReason: reason, failedDuring: stop?.during ?? from },
  });

  if (stop?.kind === 'force') return failed(failure('unknown', false, `Stopped: ${stop.reason}`));
  if (stop?.kind === 'upstream') return failed(failure('api-error', true, stop.reason));
  if (result && !result.isError && exitedCleanly(exit)) {
    const crossed = overBudget || stop?.kind === 'budget';
    return {
      from,
      to: 'completed',
      metadata: { resultMessageReceived: true, ...(crossed && { budgetExceeded: true }) },
    };
  }
  if (stop?.kind === 'budget') {
    return { from, to: 'completed', metadata: { resultMessageReceived: result !== undefined, budgetExceeded: true } };
  }
  if (stop?.kind === 'skip' && !result) return { from, to: 'skipped', metadata: { skippedDuring: stop.during } };
  if (stop?.kind === 'timeout') return failed(failure('timeout', true, stop.reason));
  // The agent gave up after its own retries: the cause seen at the wire says more than its message.
  if (upstream && (result?.isError || !exitedCleanly(exit)))
    return failed(
      failure(
        'api-error',
        true,
        `${upstream} (the agent: ${result?.isError && result.text ? result.text : exit.reason})`,
      ),
    );
  if (result?.isError)
    return failed(
      failure(
        'api-error',
        true,
        result.text
          ? `The agent reported an error result: ${result.text} (${exit.reason})`
          : `The agent reported an error result (${exit.reason})`,
      ),
    );
  if (!exitedCleanly(exit)) return failed(failure('unknown', true, `The agent ${exit.reason}`));
  return failed(failure('unknown', true, `The agent ${exit.reason} without a result message`));
}

/**
 * What to send when the checkpoint for `planned` could not be made: a would-be completed codon
 * fails ("Checkpoint creation failed"); a failed or skipped one ends as planned, without a checkpoint.
 */
export function checkpointFailed(planned: PlannedTransition, message: string): PlannedTransition {
  if (planned.to !== 'completed') return planned;
  return {
    from: planned.from,
    to: 'failed',
    metadata: {
      exitCode: 0,
      failureReason: failure('unknown', true, `Checkpoint creation failed: ${message}`),
      failedDuring: planned.from,
    },
  };
}

/** Rig setup failed: the codon fails during preparing, retriably (seed-systems.md §1.3 step 2). */
export function rigSetupFailed(exitCode: number, message: string): PlannedTransition {
  return {
    from: 'preparing',
    to: 'failed',
    metadata: { exitCode, failureReason: failure('unknown', true, message), failedDuring: 'preparing' },
  };
}
