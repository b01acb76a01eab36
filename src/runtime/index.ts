export { createRuntime, type Runtime, type RuntimeOptions, type RuntimeError, type LogEntry } from './runtime.js';
export { systemClock, ManualClock, type Clock } from './clock.js';
export type { RunHandle, ActorFactory, MachineActors, SendOptions, LogLevel, RunEvent } from './run-handle.js';
export type { RunSnapshot, CommittedStep } from './run-snapshot.js';
export type { LifecycleWiring, AttachedService } from './lifecycle-wiring.js';
export { UnknownRunError, UnknownMachineError, MalformedEventError, RunExistsError, VersionMismatchError, RuntimeClosedError, MachineError, InvalidArgumentError, ActorFactoryError, ActorsOptionError } from './errors.js';
export { isProcessAlive, processStartTime } from '../os/process-identity.js';
export { verifyRun, type RunVerification, type ReplayMismatch } from './replay.js';
export { UnknownIndexKeyError } from './index-keys.js';
