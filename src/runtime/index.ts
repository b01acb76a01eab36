export { createRuntime, type Runtime, type RuntimeOptions, type RuntimeError, type LogEntry } from './runtime.js';
export type { AnyRunEvent, EventOf, InputOf, LifecycleEvent, MachineName } from './typed-names.js';
export { systemClock, ManualClock, setTimeoutAt, MAX_TIMEOUT_MS, type Clock } from '../actor-contract/index.js';
export type {
  RunHandle,
  ActorFactory,
  MachineActors,
  SendOptions,
  LogLevel,
  RunEvent,
} from '../actor-contract/index.js';
export type { RunSnapshot, CommittedStep } from './run-snapshot.js';
export type { Refusal } from './refusal.js';
export type { LifecycleWiring, AttachedService, StartInput } from './lifecycle-wiring.js';
export {
  UnknownRunError,
  UnknownMachineError,
  MalformedEventError,
  RunExistsError,
  VersionMismatchError,
  RuntimeClosedError,
  MachineError,
  InlineChildError,
  InvalidArgumentError,
  ActorFactoryError,
  ActorsOptionError,
  PayloadTooLargeError,
  RunSetAsideError,
  RunNotSetAsideError,
} from './errors.js';
export { isProcessAlive, processStartTime } from '../os/process-identity.js';
export { verifyRun, type RunVerification, type ReplayMismatch } from './replay.js';
export { UnknownIndexKeyError } from './index-keys.js';
// `strandedRuns`: the name the root export documents (docs/api.md) for `setAsideRunsIn`.
export { setAsideRunsIn, setAsideRunsIn as strandedRuns, type SetAsideRun } from './set-aside.js';
export type { PayloadLimits } from './call-arguments.js';
export { RUN_ENDED_EVENT } from './end-run.js';
