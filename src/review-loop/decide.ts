/**
 * Steps 5 and 9 of the seed's iteration flow: what a finished agent run means for the loop. Each
 * function turns one agent run into the one event the machine takes next, so the runner only
 * relays: run the agent, collect its report, send what these return.
 */
import type { ReviewLoopEvent, Verdict } from '../../machines/review-loop/index.js';
import { consensus } from './consensus.js';
import { parseReview } from './review.js';
import type { LoopSettings } from './settings.js';

/** What one agent process produced, as the agent actor reports it. */
export interface AgentReport {
  /** The stream-json `result` message, if the agent got that far. */
  readonly result?: { readonly text: string; readonly isError: boolean };
  readonly exit: { readonly code: number | null; readonly signal: string | null; readonly reason?: string };
}

type EventOf<T extends ReviewLoopEvent['type']> = Extract<ReviewLoopEvent, { type: T }>;
export type PrimaryOutcome = EventOf<'DONE' | 'FAIL' | 'PRIMARY_FINISHED' | 'AGENT_ERROR'>;
export type ReviewOutcome = EventOf<'PASS' | 'FAIL' | 'CHANGES_REQUESTED' | 'AGENT_ERROR'>;

const MAX_QUOTED = 300;
const quote = (text: string) => (text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text);

/** Why an agent run counts as an agent error (crash, error result, no result), or undefined when it produced a usable result. */
export function agentFailure(role: string, report: AgentReport): string | undefined {
  const { code, signal, reason } = report.exit;
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  const why = reason ? ` (${reason})` : '';
  if (!report.result) return `${role} ${how} before reporting a result${why}`;
  if (report.result.isError) return `${role} reported an error: ${quote(report.result.text) || '(no message)'}`;
  // No code and no signal: the exit status is unknown (the process ended while no runner watched
  // it, or was adopted after a restart). Its complete result stands.
  if (signal || (code !== 0 && code !== null)) return `${role} ${how} after reporting its result${why}`;
  return undefined;
}

/**
 * After the primary: FAIL fails the loop; DONE completes it, except in claudex mode, where the
 * primary's DONE is its half of the consensus and the reviewer must agree; otherwise on to review
 * (or, alone, to the next iteration) carrying the primary's own verdict.
 */
export function afterPrimary(settings: LoopSettings, report: AgentReport): PrimaryOutcome {
  const error = agentFailure('primary', report);
  if (error) return { type: 'AGENT_ERROR', error };
  const review = parseReview(report.result!.text, { doneSignal: settings.doneSignal });
  const kind = review.signal?.kind;
  const reason = review.reason || undefined;
  if (kind === 'fail') return { type: 'FAIL', ...(reason && { reason }) };
  const single = !settings.reviewer;
  // Alone, the primary's PASS is as good as DONE (agentpair's single loop completes on either).
  if (kind === 'done' || (single && kind === 'pass')) {
    if (single || settings.reviewMode !== 'claudex') return { type: 'DONE', ...(reason && { reason }) };
  }
  return { type: 'PRIMARY_FINISHED', verdict: review.verdict, ...(reason && { reason }) };
}

/** After the reviewer: the consensus of the mode decides; anything short of PASS or FAIL asks for more work. */
export function afterReview(settings: LoopSettings, primaryVerdict: Verdict, report: AgentReport): ReviewOutcome {
  if (!settings.reviewer) throw new Error('afterReview called for a single-agent loop, which has no reviewer');
  const error = agentFailure('reviewer', report);
  if (error) return { type: 'AGENT_ERROR', error };
  const review = parseReview(report.result!.text, { doneSignal: settings.doneSignal });
  const result = consensus(settings.reviewMode, {
    [settings.primary.name]: { verdict: primaryVerdict },
    [settings.reviewer.name]: review,
  });
  const reason = result.outcome === 'pending' ? review.reason || result.reason : result.reason;
  if (result.outcome === 'pass') return { type: 'PASS', reason };
  if (result.outcome === 'fail') return { type: 'FAIL', reason };
  return { type: 'CHANGES_REQUESTED', reason };
}
