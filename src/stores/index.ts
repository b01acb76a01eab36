export type {
  Store,
  StoredRun,
  EventRecord,
  Commit,
  RunFilter,
  RunPageQuery,
  RunPage,
  RunCursor,
  RunCounts,
  RunGroup,
  OwnerInfo,
  RunLease,
  CommitLease,
  Claim,
  ClaimOptions,
  StoreLeases,
} from './store.js';
export { CommitConflictError, LeaseLostError, RunHeldError } from './store.js';
export {
  StoreCorruptionError,
  StoreOpenError,
  StoreLockedError,
  StoreClosedError,
  StoreFormatError,
  StoreReadOnlyError,
  type CorruptionReport,
} from './store-errors.js';
export { StoreFullError } from './store-errors.js';
export { StoreUnavailableError, CommitOutcomeUnknownError } from './store-errors.js';
export { memoryStore } from './memory/memory-store.js';
export { jsonFileStore, type JsonFileStore, type JsonFileStoreOptions } from './json-file/json-file-store.js';
export { sqliteStore, DEFAULT_SQLITE_PATH, type SqliteStoreOptions } from './sqlite/sqlite-store.js';
export { postgresStore, type PostgresStoreOptions } from './postgres/postgres-store.js';
