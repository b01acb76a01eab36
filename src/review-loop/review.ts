import type { Verdict } from '../../machines/review-loop/index.js';
import { detectSignals, type Signal, type SignalOptions } from './signals.js';

/** What an agent's output says about the work: the verdict, whether a token said so, and why. */
export interface Review {
  readonly verdict: Verdict;
  /** Said with a token (PASS, FAIL, DONE, ...) rather than a phrase ("looks good", "tests fail"). */
  readonly explicit: boolean;
  readonly reason: string;
  /** The signal the verdict comes from; undefined for `none`. */
  readonly signal?: Signal;
}

/**
 * Reads a review from an agent's final output. DONE counts as PASS (an agent that says its work
 * is done approves it, as agentpair's bridge maps SignalDone to PASS); REJECTED, NEEDS CHANGES and
 * phrases such as "tests fail" ask for changes; only FAIL fails.
 */
export function parseReview(output: string, options: SignalOptions = {}): Review {
  const { signal } = detectSignals(output, options);
  if (!signal) return { verdict: 'none', explicit: false, reason: '' };
  const verdict: Verdict = signal.kind === 'done' ? 'pass' : signal.kind;
  return { verdict, explicit: signal.explicit, reason: signal.reason, signal };
}
