export type { Store, StoredRun, EventRecord, Commit, RunFilter, OwnerInfo } from './store.js';
export { CommitConflictError } from './store.js';
export { memoryStore } from './memory-store.js';
export { sqliteStore, DEFAULT_SQLITE_PATH, type SqliteStoreOptions } from './sqlite-store.js';
