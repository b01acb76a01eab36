/** Where the embedded default store lives, relative to the working directory. Apart from the store, so the CLI can name it in its help without loading SQLite. */
export const DEFAULT_SQLITE_PATH = '.statewright/state.db';
