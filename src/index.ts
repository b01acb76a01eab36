/**
 * statewright: a durable statechart runtime for agent and CI lifecycles. This is the public surface
 * of the root export, listed name by name so that nothing internal leaks into it (a test holds every
 * name here to docs/api.md). Each lifecycle's service comes from its own subpath
 * (`statewright/session`, `statewright/codon`, `statewright/review-loop`, `statewright/task`),
 * wired the same way onto a runtime made here; the machines and their helpers from
 * `statewright/machines`.
 */

// The runtime.
export {
  createRuntime,
  systemClock,
  ManualClock,
  verifyRun,
  strandedRuns,
  setTimeoutAt,
  type SetAsideRun,
  type PayloadLimits,
  type Runtime,
  type RuntimeOptions,
  type RuntimeError,
  type LogEntry,
  type Clock,
  type RunHandle,
  type ActorFactory,
  type MachineActors,
  type SendOptions,
  type LogLevel,
  type RunEvent,
  type RunSnapshot,
  type CommittedStep,
  type LifecycleWiring,
  type AttachedService,
  type RunVerification,
  type ReplayMismatch,
  type MachineName,
  type EventOf,
  type InputOf,
  type LifecycleEvent,
  type AnyRunEvent,
} from './runtime/index.js';
export {
  UnknownRunError,
  UnknownMachineError,
  MalformedEventError,
  RunExistsError,
  VersionMismatchError,
  RuntimeClosedError,
  MachineError,
  InvalidArgumentError,
  ActorFactoryError,
  ActorsOptionError,
  UnknownIndexKeyError,
  PayloadTooLargeError,
  RunSetAsideError,
  RunNotSetAsideError,
} from './runtime/index.js';

// The stores.
export {
  memoryStore,
  jsonFileStore,
  sqliteStore,
  postgresStore,
  DEFAULT_SQLITE_PATH,
  CommitConflictError,
  LeaseLostError,
  RunHeldError,
  StoreCorruptionError,
  StoreOpenError,
  StoreLockedError,
  StoreClosedError,
  StoreFormatError,
  StoreReadOnlyError,
  StoreFullError,
  StoreUnavailableError,
  CommitOutcomeUnknownError,
  type Store,
  type StoredRun,
  type EventRecord,
  type Commit,
  type RunFilter,
  type RunPageQuery,
  type RunPage,
  type RunCursor,
  type RunCounts,
  type OwnerInfo,
  type RunLease,
  type CorruptionReport,
  type JsonFileStore,
  type JsonFileStoreOptions,
  type SqliteStoreOptions,
  type PostgresStoreOptions,
} from './stores/index.js';

// What is derived from any machine, and the guards machines are built with.
export {
  InvalidTransitionError,
  MetadataValidationError,
  RoleError,
  lifecycleHelpers,
  compileTransitions,
  transitionTable,
  finalStateNames,
  validEventsByState,
  eventTypes,
  leafStates,
  verifyMachine,
  explainRejection,
  toMermaid,
  toDot,
  metadataGuard,
  parseInput,
  roleGuard,
  explainedGuard,
  type LifecycleHelpers,
  type CompiledLifecycle,
  type TransitionRow,
  type VerificationReport,
  type MetadataGuardOptions,
  type MetadataSelector,
  type RoleSource,
  type GuardCheck,
} from './graph/index.js';

// Why a run is where it is (`statewright explain`), and static checks of machines (`statewright check`).
export { explainRun, type ExplainSource, type Explanation, type ArmedDeadline, type Refusal } from './explain/index.js';
export {
  budgetGuard,
  checkMachine,
  CHECK_RULES,
  type CheckViolation,
  type CheckRule,
  type CheckOptions,
} from './graph/index.js';

// Your own lifecycles: the config file every command reads (`statewright.config.ts`).
export {
  defineConfig,
  defineLifecycle,
  editMachine,
  registryOf,
  ConfigNotFoundError,
  ConfigLoadError,
  InvalidConfigError,
  type StatewrightConfig,
  type NamedLifecycle,
  type LifecycleSpec,
  type MachineDefinition,
  type WaitsFor,
  type WaitingFor,
  type Registry,
} from './config/index.js';
