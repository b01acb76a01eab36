/**
 * How a typed error becomes an HTTP answer: `{ error: <its name>, kind, message }` with the status
 * its kind maps to (src/errors.ts). An error that is not statewright's own is a 500.
 */
import { errorKind, httpStatus, type ErrorKind } from '../errors.js';
import { LeaseLostError, RunHeldError, type RunLease } from '../stores/store.js';
import { QueryParameterError } from './serve-errors.js';

export interface ErrorBody {
  readonly error: string;
  readonly kind: ErrorKind;
  readonly message: string;
  /** `RunHeldError`: the run, and the host that holds it (where to send its events). */
  readonly runId?: string;
  readonly holder?: string;
  readonly lease?: RunLease;
  /** `LeaseLostError`: each run this host lost, the lease it wrote under and the one stored now. */
  readonly lost?: ReadonlyArray<{ runId: string; holder: string; epoch: number; stored: RunLease | null }>;
  /** `QueryParameterError`: the query parameter that was wrong. */
  readonly parameter?: string;
}

export const errorStatus = (error: Error) =>
  httpStatus(error) as 400 | 401 | 403 | 404 | 409 | 413 | 415 | 421 | 422 | 500 | 503;

export function errorBody(error: Error): ErrorBody {
  const base = { error: error.name, kind: errorKind(error), message: error.message };
  if (error instanceof RunHeldError)
    return { ...base, runId: error.runId, holder: error.lease.holder, lease: error.lease };
  if (error instanceof QueryParameterError) return { ...base, parameter: error.parameter };
  if (error instanceof LeaseLostError) {
    return {
      ...base,
      lost: error.lost.map(({ runId, holder, epoch, stored }) => ({ runId, holder, epoch, stored: stored ?? null })),
    };
  }
  return base;
}
