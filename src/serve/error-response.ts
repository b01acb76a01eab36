/**
 * How a typed error becomes an HTTP answer: `{ error: <its name>, message }` with the status that
 * fits (the API contract). Errors are recognised by class where this layer knows them, and by name
 * for those raised below it that it need not import.
 */
import { InvalidTransitionError, MetadataValidationError } from '../graph/index.js';
import { InvalidArgumentError, MachineError, MalformedEventError, RunExistsError, RuntimeClosedError, UnknownMachineError, UnknownRunError, VersionMismatchError } from '../runtime/index.js';
import { StoreClosedError, StoreCorruptionError, StoreLockedError, StoreOpenError } from '../stores/store-errors.js';
import { CommitConflictError, LeaseLostError, RunHeldError, type RunLease } from '../stores/store.js';
import {
  BodyTooLargeError,
  ForeignOriginError,
  HostNotAllowedError,
  MalformedUrlError,
  RequestBodyError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from './serve-errors.js';

export interface ErrorBody {
  readonly error: string;
  readonly message: string;
  /** `RunHeldError`: the run, and the host that holds it (where to send its events). */
  readonly runId?: string;
  readonly holder?: string;
  readonly lease?: RunLease;
  /** `LeaseLostError`: each run this host lost, the lease it wrote under and the one stored now. */
  readonly lost?: ReadonlyArray<{ runId: string; holder: string; epoch: number; stored: RunLease | null }>;
}

export function errorStatus(error: Error): 400 | 401 | 403 | 404 | 409 | 413 | 415 | 421 | 422 | 500 | 503 {
  if (error instanceof MalformedUrlError) return 400;
  if (error instanceof UnauthorizedError) return 401;
  if (error instanceof ForeignOriginError) return 403;
  if (error instanceof UnsupportedMediaTypeError) return 415;
  if (error instanceof HostNotAllowedError) return 421;
  if (error instanceof UnknownRunError || error instanceof UnknownMachineError || /^(NoTask|LoopNotFound)Error$/.test(error.name)) return 404;
  if (error instanceof BodyTooLargeError || /TooLarge/.test(error.name)) return 413;
  if (error instanceof MetadataValidationError || error instanceof InvalidArgumentError || error instanceof MalformedEventError || error instanceof RequestBodyError) return 422;
  // A machine that threw on a start's input: the input was wrong.
  if (error instanceof MachineError && error.cause instanceof MetadataValidationError) return 422;
  if (
    error instanceof InvalidTransitionError ||
    error instanceof CommitConflictError ||
    error instanceof RunHeldError ||
    error instanceof LeaseLostError ||
    error instanceof RunExistsError ||
    error instanceof VersionMismatchError ||
    /^(ApprovalNotPending|RecordReference|LoopBusy|Run\w*SetAside)Error$/.test(error.name)
  ) {
    return 409;
  }
  if (
    error instanceof RuntimeClosedError ||
    error instanceof StoreClosedError ||
    error instanceof StoreOpenError ||
    error instanceof StoreLockedError ||
    error instanceof StoreCorruptionError ||
    /^Store\w*Error$|Unavailable|^CommitOutcomeUnknownError$/.test(error.name)
  ) {
    return 503;
  }
  return 500;
}

export function errorBody(error: Error): ErrorBody {
  if (error instanceof RunHeldError) return { error: error.name, message: error.message, runId: error.runId, holder: error.lease.holder, lease: error.lease };
  if (error instanceof LeaseLostError) {
    return { error: error.name, message: error.message, lost: error.lost.map(({ runId, holder, epoch, stored }) => ({ runId, holder, epoch, stored: stored ?? null })) };
  }
  return { error: error.name, message: error.message };
}
