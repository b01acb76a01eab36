/**
 * Every registered lifecycle on one runtime, with its real actors, as `statewright serve` hosts
 * them: the config's machines with the actors the config gives them, and each built-in lifecycle
 * (edited or not) with its service: `<lifecycle>Lifecycle(...)` gives its actors to
 * `createRuntime`, which recovers every unfinished run (and from then on keeps their durable
 * timers firing), and each service is attached.
 * Closing hands the runs over (agents keep running for the next host) or, for a final stop,
 * lets each service end what it started.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { lifecycles as builtIns } from '../../machines/index.js';
import type { Lifecycles } from '../../machines/lifecycle.js';
import type { MachineActors } from '../actor-contract/run-handle.js';
import { codonLifecycle } from '../codon/index.js';
import type { InspectionEvent } from 'xstate';
import { reviewLoopLifecycle, type ReviewLoops } from '../review-loop/index.js';
import {
  createRuntime,
  type AttachedService,
  type LogEntry,
  type Runtime,
  type RuntimeOptions,
  type RunSnapshot,
  type RuntimeError,
} from '../runtime/index.js';
import {
  adoptingRecordedAgents,
  sessionLifecycle,
  withPermissionPrompt,
  type PermissionPrompt,
  type SessionConfig,
  type SessionDaemon,
} from '../session/index.js';
import type { Store } from '../stores/index.js';
import { taskLifecycle, type TaskSession } from '../task/index.js';
import { adoptingHandOver, readHandOver, removeHandOver, writeHandOver } from './hand-over.js';

export interface LifecycleHostOptions {
  readonly store: Store;
  /** The lifecycles to host (default the built-in ones): a config's registry. */
  readonly machines?: Lifecycles;
  /** Actors for the machines the built-in services do not bring (the config's `actors`). */
  readonly actors?: MachineActors;
  /** Where the services keep their files: session logs under `sessions/`, review loops under `loops/`. */
  readonly home: string;
  /** The ferrus project folder whose task this host runs (its ferrus.toml, STATE.json). */
  readonly taskDir: string;
  /** The permission prompt every session gets unless its config names its own (src/session/permission-prompt.ts). */
  readonly permissionPrompt?: PermissionPrompt;
  /** Who this host is and how it holds its runs: its owner id, its lease TTL, its hibernation. */
  readonly runtime?: Pick<RuntimeOptions, 'owner' | 'leases' | 'hibernate'>;
  /** The hand-over record beside the store (see hand-over.ts); none for a store only this process sees. */
  readonly handOverFile?: string;
  /**
   * Owners whose runs were handed over within this process (a host closed for a config reload, as
   * `close` said): treated as the hand-over record's, on a store without leases (on one with
   * leases, each lease says so).
   */
  readonly handedOverBy?: readonly string[];
  readonly inspect?: (event: InspectionEvent) => void;
  readonly onError?: (error: RuntimeError) => void;
  readonly onLog?: (entry: LogEntry) => void;
}

export interface LifecycleHost {
  readonly runtime: Runtime;
  /** Each built-in lifecycle's service, where its machine is hosted (a config may leave the built-ins out). */
  readonly sessions?: SessionDaemon;
  /** The review loops and the task API on this runtime (the demo drives them). */
  readonly reviewLoops?: ReviewLoops;
  readonly tasks?: TaskSession;
  /** The runs restored at start because their previous host handed them over. */
  readonly adopted: number;
  /**
   * `runtime.start`, with what the host knows filled in: a session's input gets `created_at` (now)
   * and `log_path` (under the host's session logs) unless given (`sessionStartInput`, as a Restate
   * worker's run objects fill them), and the host's permission prompt in its config unless that
   * names its own, as the session daemon's `launch` does.
   */
  start(machine: string, options: { id?: string; input?: unknown }): Promise<RunSnapshot>;
  /**
   * `handOver` (a graceful stop): what is queued is applied, the agents keep running, and the
   * next host adopts them. Otherwise each service ends what it started. The store stays open.
   * Resolves with the owners whose runs were handed over (for the next host's `handedOverBy`).
   */
  close(options: { handOver: boolean }): Promise<readonly string[]>;
}

export async function startLifecycleHost(options: LifecycleHostOptions): Promise<LifecycleHost> {
  // On a store with leases the lease itself says a run was handed over ('handedOver'): no file.
  const handOverFile = options.store.leases ? undefined : options.handOverFile;
  const handedOverBy = options.store.leases ? [] : (options.handedOverBy ?? []);
  const fromFile = handOverFile ? readHandOver(handOverFile) : undefined;
  const handedOver =
    fromFile || handedOverBy.length
      ? { owners: [...new Set([...(fromFile?.owners ?? []), ...handedOverBy])] }
      : undefined;
  const logDir = join(options.home, 'sessions');
  const sessions = sessionLifecycle({
    logDir,
    ...(options.permissionPrompt && { permissionPrompt: options.permissionPrompt }),
  });
  const codons = codonLifecycle();
  const reviewLoops = reviewLoopLifecycle({ dir: join(options.home, 'loops') });
  const tasks = taskLifecycle({ dir: options.taskDir, runsChecks: true });
  const machines = options.machines ?? builtIns;
  const hosts = (name: string) => Object.hasOwn(machines, name);
  // A built-in service's actors only for its machine: `createRuntime` refuses actors of a machine it does not host.
  const builtInActors = Object.fromEntries(
    Object.entries({ ...sessions.actors, ...codons.actors, ...reviewLoops.actors, ...tasks.actors }).filter(([name]) =>
      hosts(name),
    ),
  );
  const runtime = await createRuntime({
    ...options.runtime,
    store: options.store,
    machines: adoptingRecordedAgents(adoptingHandOver(machines, handedOver?.owners ?? [])),
    actors: { ...builtInActors, ...options.actors },
    ...(options.inspect && { inspect: options.inspect }),
    ...(options.onError && { onError: options.onError }),
    ...(options.onLog && { onLog: options.onLog }),
  });
  const services: AttachedService[] = [];
  try {
    const attach = async <S extends AttachedService>(
      name: string,
      service: { attach(runtime: Runtime): Promise<S> },
    ) => {
      if (!hosts(name)) return undefined;
      const attached = await service.attach(runtime);
      services.push(attached);
      return attached;
    };
    const daemon = await attach('session', sessions);
    await attach('codon', codons);
    const loops = await attach('review-loop', reviewLoops);
    const task = await attach('task', tasks);
    const adopted = options.store.leases
      ? runtime.restoredAtStart.filter((run) => run.adopted).length
      : handedOver
        ? runtime.restoredAtStart.length
        : 0;
    if (handOverFile) removeHandOver(handOverFile);
    return {
      runtime,
      ...(daemon && { sessions: daemon }),
      ...(loops && { reviewLoops: loops }),
      ...(task && { tasks: task }),
      adopted,
      start(machine, { id, input }) {
        if (machine !== 'session' || typeof input !== 'object' || input === null || Array.isArray(input))
          return runtime.start(machine, { ...(id !== undefined && { id }), ...(input !== undefined && { input }) });
        const runId = id ?? randomUUID();
        const { config } = input as { config?: unknown };
        // A config that is not an object is the machine's to refuse, with its own message.
        const prompted =
          options.permissionPrompt && (config === undefined || (typeof config === 'object' && config !== null))
            ? { config: withPermissionPrompt(config as SessionConfig | undefined, options.permissionPrompt) }
            : {};
        const filled = sessions.startInput(input, { runId, now: runtime.clock.now() }) as object;
        return runtime.start(machine, { id: runId, input: { ...filled, ...prompted } });
      },
      async close({ handOver }) {
        await Promise.all(
          services.map((service) => (service === daemon ? daemon.close({ handOver }) : service.close())),
        );
        await runtime.close({ handOver });
        if (!handOver || options.store.leases) return [];
        // Every owner still named on an active run that this host took over: this one, and those it adopted from.
        const mine = new Set([runtime.owner.id, ...(handedOver?.owners ?? [])]);
        const owners = new Set(
          (await options.store.list({ status: 'active' })).flatMap((run) =>
            run.owner && mine.has(run.owner.id) ? [run.owner.id] : [],
          ),
        );
        if (owners.size && handOverFile) writeHandOver(handOverFile, { owners: [...owners], at: Date.now() });
        return [...owners];
      },
    };
  } catch (error) {
    await Promise.allSettled(services.map((service) => service.close()));
    await runtime.close();
    throw error;
  }
}
