/**
 * What a `statewright worker`'s run objects fill in a run's input at its start, as `statewright
 * serve` does on a store: each built-in service's own (`sessionLifecycle(...).startInput`: a
 * session's `created_at` and its `log_path` under the worker's home, where the worker's agent writes
 * its output and pid record), for the built-in machines the worker hosts.
 */
import { join } from 'node:path';
import type { Lifecycles } from '../../machines/lifecycle.js';
import type { StartInput } from '../runtime/lifecycle-wiring.js';
import { sessionLifecycle } from '../session/index.js';

export interface WorkerStartInputsOptions {
  readonly machines: Lifecycles;
  /** Where session logs (`sessions/`) are kept: the worker's `--home`, as `workerActors` takes it. */
  readonly home: string;
}

export function workerStartInputs(options: WorkerStartInputsOptions): Readonly<Record<string, StartInput>> {
  const builtIn: Record<string, StartInput> = {
    session: sessionLifecycle({ logDir: join(options.home, 'sessions') }).startInput,
  };
  return Object.fromEntries(Object.entries(builtIn).filter(([name]) => Object.hasOwn(options.machines, name)));
}
