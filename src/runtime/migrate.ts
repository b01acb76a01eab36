import type { Lifecycle } from '../../machines/lifecycle.js';
import type { StoredRun } from '../stores/store.js';
import { VersionMismatchError } from './errors.js';

/**
 * Brings a stored run up to the lifecycle's current version through its registered migrations,
 * one version at a time. A missing step, or a stored version newer than the code, is refused.
 */
export function migrate(run: StoredRun, lifecycle: Lifecycle): StoredRun {
  if (run.version === lifecycle.version) return run;
  if (run.version > lifecycle.version)
    throw new VersionMismatchError(run.runId, run.machine, run.version, lifecycle.version);
  let snapshot = run.snapshot;
  for (let version = run.version; version < lifecycle.version; version++) {
    const step = lifecycle.migrations?.[version];
    if (!step) throw new VersionMismatchError(run.runId, run.machine, run.version, lifecycle.version);
    snapshot = step(snapshot);
  }
  return { ...run, snapshot, version: lifecycle.version };
}
