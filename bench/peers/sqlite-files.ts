/** Fresh SQLite files, each in a folder of its own under the system's temp folder. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const freshSqliteFile = (system: string) => join(mkdtempSync(join(tmpdir(), `peers-${system}-`)), 'state.db');

export const dropSqliteFile = (file: string) => rmSync(dirname(file), { recursive: true, force: true });
