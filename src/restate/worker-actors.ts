/**
 * The actors a `statewright worker` performs: each built-in lifecycle's (the session's agent, the
 * codon's agent, rig and sentinels, the review loop's agents, the task's checks), as their services
 * give them to `statewright serve`, for the machines the worker hosts, and the config's own.
 */
import { join } from 'node:path';
import type { Lifecycles } from '../../machines/lifecycle.js';
import type { MachineActors } from '../actor-contract/run-handle.js';
import { codonLifecycle } from '../codon/index.js';
import { tightenPrivate } from '../os/private-files.js';
import { reviewLoopLifecycle } from '../review-loop/index.js';
import { sessionLifecycle } from '../session/index.js';
import { taskLifecycle } from '../task/index.js';

export interface WorkerActorsOptions {
  readonly machines: Lifecycles;
  /** The config's actors for its own machines. */
  readonly actors?: MachineActors;
  /** Where session logs (`sessions/`) and review loops (`loops/`) are kept. */
  readonly home: string;
  /** The ferrus project folder whose checks the task's actor runs. */
  readonly taskDir: string;
}

export function workerActors(options: WorkerActorsOptions): MachineActors {
  // Made by an older worker with the umask's modes: agent transcripts and approvals, owner-only now.
  const { home } = options;
  tightenPrivate(`the worker's agent logs in ${home}`, [home, join(home, 'sessions'), join(home, 'loops')]);
  const builtIn = {
    ...sessionLifecycle({ logDir: join(options.home, 'sessions') }).actors,
    ...codonLifecycle().actors,
    ...reviewLoopLifecycle({ dir: join(options.home, 'loops') }).actors,
    ...taskLifecycle({ dir: options.taskDir, runsChecks: true }).actors,
  };
  return {
    ...Object.fromEntries(Object.entries(builtIn).filter(([name]) => Object.hasOwn(options.machines, name))),
    ...options.actors,
  };
}
