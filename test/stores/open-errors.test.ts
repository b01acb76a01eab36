/** A store that cannot be opened where it was asked to be says where, why, and what to do. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonFileStore, postgresStore, sqliteStore, StoreOpenError } from '../../src/stores/index.js';
import { testDir } from './temp-dir.js';

/** A path whose parent is a plain file, so no folder can be made there. */
function underAFile(): string {
  const file = join(testDir('open'), 'a-file');
  writeFileSync(file, 'not a folder');
  return join(file, 'store');
}

describe('opening a store where it cannot be', () => {
  it('sqlite: StoreOpenError naming the path and the reason', () => {
    const path = join(underAFile(), 'state.db');
    const error = (() => {
      try {
        sqliteStore(path);
      } catch (e) {
        return e as StoreOpenError;
      }
    })();
    expect(error).toBeInstanceOf(StoreOpenError);
    expect(error!.message).toMatch(
      new RegExp(
        `^Cannot open the sqlite store at ${path}: ENOTDIR: .*\\. Pick a file in a folder this process can create and write`,
      ),
    );
  });

  it('json-file: StoreOpenError naming the folder and the reason', () => {
    const dir = underAFile();
    expect(() => jsonFileStore(dir)).toThrow(StoreOpenError);
    expect(() => jsonFileStore(dir)).toThrow(
      new RegExp(`^Cannot open the json-file store at ${dir}: ENOTDIR: .*\\. Pick a folder`),
    );
  });

  it('postgres: StoreOpenError when no server answers', async () => {
    const opening = postgresStore({ connectionString: 'postgres://postgres@127.0.0.1:1/test' });
    await expect(opening).rejects.toThrow(StoreOpenError);
    await expect(postgresStore({ connectionString: 'postgres://postgres@127.0.0.1:1/test' })).rejects.toThrow(
      /^Cannot open the postgres store at schema 'statewright': .*ECONNREFUSED.*Check DATABASE_URL/,
    );
  });
});
