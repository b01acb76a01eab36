import { join } from 'node:path';
import { jsonFileStore, postgresStore, sqliteStore, type CorruptionReport } from '../../src/stores/index.js';
import { testDir } from '../stores/temp-dir.js';
import { dropSchema, freshSchema, requirePostgres, skipPostgres, url } from '../stores/test-postgres.js';
import type { StoreUnderTest } from './crash-boundary.js';

/**
 * The stores the crash-boundary suites crash on, by the name a child program opens them with
 * (crash-boundary-child.ts): a fresh file, folder or schema per lifecycle and death. Postgres is left
 * out when STATEWRIGHT_SKIP_POSTGRES=1 (see test-postgres.ts). The json-file store's corruption
 * reports go to `reports`.
 */
export function storesUnderTest(reports: CorruptionReport[]): Record<string, StoreUnderTest> {
  return {
    sqlite: {
      location: (label) => join(testDir(`boundary-${label}`), 'state.db'),
      open: (location) => sqliteStore(location, { synchronous: 'NORMAL' }),
    },
    'json-file': {
      location: (label) => join(testDir(`boundary-${label}`), 'store'),
      open: (location) => jsonFileStore(location, { onCorruption: (report) => reports.push(report) }),
    },
    ...(!skipPostgres && {
      postgres: {
        location: () => (requirePostgres(), freshSchema()),
        open: (schema: string) => postgresStore({ connectionString: url, schema }),
        dispose: (schema: string) => dropSchema(schema),
      },
    }),
  };
}
