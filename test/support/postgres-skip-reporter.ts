/**
 * Says at the end of the run that the Postgres tests were skipped, when STATEWRIGHT_SKIP_POSTGRES=1
 * asked for it, so that a green run without Postgres does not pass for a full one.
 */
import type { Reporter } from 'vitest/reporters';
import { skipPostgres } from '../stores/test-postgres.js';

export default class PostgresSkipReporter implements Reporter {
  onTestRunEnd(): void {
    if (skipPostgres) {
      process.stdout.write(
        '\n  Postgres tests SKIPPED (STATEWRIGHT_SKIP_POSTGRES=1): the postgres store conformance and crash tests did not run.\n\n',
      );
    }
  }
}
