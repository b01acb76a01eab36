/**
 * An agent retrying a failed model call (Claude's `system/api_retry`, reported as `agent.retrying`),
 * as the session and codon lifecycles keep it until the agent's next message or result: without
 * it, minutes of HTTP 529 retries look like an agent at work (issue 32 saw 181 s of them).
 */
import { z } from 'zod';

const count = z.number().int().nonnegative();

/** The `agent.retrying` report's fields (src/actors/claude-lines.ts reads them). */
export const agentRetryFields = {
  attempt: count,
  maxRetries: count.optional(),
  errorStatus: count.optional(),
  error: z.string().optional(),
  retryDelayMs: z.number().nonnegative().optional(),
};

/** The retry as a lifecycle keeps it: the report's fields, and since when (the first retry's time). */
export interface AgentRetrying {
  readonly attempt: number;
  readonly max_retries: number | null;
  readonly error_status: number | null;
  readonly error: string | null;
  /** When the first retry of this run of retries was reported. */
  readonly since: number;
  readonly at: number;
}

export interface AgentRetryReport {
  attempt: number;
  maxRetries?: number | undefined;
  errorStatus?: number | undefined;
  error?: string | undefined;
  at: number;
}

/** The retry to keep: a later attempt of the same run of retries keeps its `since`. */
export function agentRetrying(previous: AgentRetrying | null | undefined, report: AgentRetryReport): AgentRetrying {
  return {
    attempt: report.attempt,
    max_retries: report.maxRetries ?? null,
    error_status: report.errorStatus ?? null,
    error: report.error ?? null,
    since: previous?.since ?? report.at,
    at: report.at,
  };
}

/** "retrying: attempt 3 of 10, HTTP 529 (overloaded), since 2026-11-28T11:16:58.000Z". */
export function retryNote(retrying: AgentRetrying): string {
  const of = retrying.max_retries === null ? '' : ` of ${retrying.max_retries}`;
  const status = retrying.error_status === null ? '' : `, HTTP ${retrying.error_status}`;
  const error = retrying.error === null ? '' : ` (${retrying.error})`;
  return `retrying: attempt ${retrying.attempt}${of}${status}${error}, since ${new Date(retrying.since).toISOString()}`;
}

/** "retrying 3/10 (HTTP 529)": the retry in a few words, for `statewright status`'s table. */
export function retryStatusNote(retrying: AgentRetrying): string {
  const of = retrying.max_retries === null ? '' : `/${retrying.max_retries}`;
  const status = retrying.error_status === null ? '' : ` (HTTP ${retrying.error_status})`;
  return `retrying ${retrying.attempt}${of}${status}`;
}
