/**
 * The actor contract: what an actor started by a run sees of the runtime (`RunHandle`), how it is
 * given to a runtime (`ActorFactory`, `MachineActors`), and the clock it reads. The runtime and the
 * actors (src/actors, each lifecycle's) both import this module; neither imports the other.
 */
export { systemClock, ManualClock, setTimeoutAt, MAX_TIMEOUT_MS, LAST_DATE_MS, type Clock } from './clock.js';
export type { RunHandle, ActorFactory, MachineActors, SendOptions, LogLevel, RunEvent } from './run-handle.js';
