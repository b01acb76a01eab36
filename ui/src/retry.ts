/**
 * When the view reads again after a read failed: a slow or busy server, a link that dropped, a
 * serve restarting. The view shows the error meanwhile and goes on trying, doubling the wait, so a
 * page opened at a bad moment ends up showing its data without a reload.
 */
import { ApiError } from './api.js';

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 30_000;

/** The wait before try `attempt + 1` (0 for the first retry): 1 s, 2 s, 4 s... up to 30 s. */
export const retryDelayMs = (attempt: number): number => Math.min(FIRST_RETRY_MS * 2 ** attempt, LAST_RETRY_MS);

/**
 * Whether a failed read may pass when tried again: no answer at all (the fetch failed), or the
 * server's own trouble (5xx, 408, 429). Any other 4xx is the server's answer (no such run): kept.
 */
export const worthRetrying = (error: unknown): boolean =>
  !(error instanceof ApiError) || error.status >= 500 || error.status === 408 || error.status === 429;
