/**
 * A statewright worker on Restate: it serves the endpoint (every lifecycle's run object, the run
 * directory, and the actor host with the real actors), registers it with the Restate admin API
 * (`POST /deployments`), and takes over the actors every run lists as live (after its own crash, or
 * another worker's): an agent whose recorded process (pid and start time) still runs is adopted,
 * never spawned again. `close({ handOver: true })` lets the agents run on for the next worker.
 * Every call through the ingress must show the worker's token (caller-check.ts); a worker without
 * one is refused unless the Restate server's ingress and admin API are on loopback.
 */
import type { Lifecycles } from '../../machines/lifecycle.js';
import type { MachineActors } from '../actor-contract/run-handle.js';
import type { StartInput } from '../runtime/lifecycle-wiring.js';
import type { ActorLog } from './actor-host.js';
import { isLoopback, isStrongToken } from '../secret-token.js';
import { AdminClient } from './admin-client.js';
import { restateEndpoint } from './restate-endpoint.js';
import { RestateTokenError } from './restate-errors.js';

export interface WorkerOptions {
  readonly machines: Lifecycles;
  readonly actors: MachineActors;
  /** What the services fill in a run's input at its start, by machine (`workerStartInputs`). */
  readonly startInputs?: Readonly<Record<string, StartInput>>;
  /** The ingress (or every node's) the actors report through. */
  readonly ingress: string | readonly string[];
  /** The admin API the worker registers with and queries. */
  readonly admin: string;
  /** The port to serve on (0: any free one), on `host` (default loopback). */
  readonly port: number;
  readonly host?: string;
  /** The URL Restate calls the worker at, when not `http://<host>:<port>` (behind a proxy, in a container). */
  readonly advertise?: string;
  readonly onLog?: (entry: ActorLog) => void;
  /** The Restate servers' request identity public keys: only requests they signed are served (see `restateEndpoint`). */
  readonly identityKeys?: readonly string[];
  /**
   * The token every call through the ingress must show, and the actors report with (16 or more
   * visible characters). `false`: none, accepted only when the ingress and the admin API are on loopback.
   */
  readonly token: string | false;
  /** Origins whose web pages may call the run objects (any other `Origin` is refused). */
  readonly allowedOrigins?: readonly string[];
}

export interface Worker {
  /** Where Restate calls this worker. */
  readonly url: string;
  readonly port: number;
  /** The services it registered. */
  readonly services: readonly string[];
  /** How many live actors it took over at start. */
  readonly adopted: number;
  close(options?: { handOver?: boolean }): Promise<void>;
}

export async function startWorker(options: WorkerOptions): Promise<Worker> {
  checkWorkerToken(options);
  const endpoint = restateEndpoint({
    token: options.token,
    ...(options.allowedOrigins && { allowedOrigins: options.allowedOrigins }),
    machines: options.machines,
    actors: options.actors,
    ingress: options.ingress,
    ...(options.startInputs && { startInputs: options.startInputs }),
    ...(options.onLog && { onLog: options.onLog }),
    ...(options.identityKeys && { identityKeys: options.identityKeys }),
  });
  const listening = await endpoint.listen(options.port, options.host);
  const close = async ({ handOver = false }: { handOver?: boolean } = {}) => {
    await endpoint.actorHost?.close({ handOver });
    await listening.close();
  };
  try {
    const url = options.advertise ?? listening.url;
    const admin = new AdminClient(options.admin);
    const services = await admin.register(url);
    const adopted = (await endpoint.actorHost?.adopt(admin, Object.keys(options.machines))) ?? 0;
    return { url, port: listening.port, services, adopted, close };
  } catch (error) {
    await close({ handOver: true });
    throw error;
  }
}

/** Refuses a weak token, and no token where anyone but this machine reaches the ingress or the admin API. */
function checkWorkerToken({ token, ingress, admin }: WorkerOptions): void {
  if (token !== false) {
    if (!isStrongToken(token))
      throw new RestateTokenError(
        `its token is ${token.trim().length} characters, or has spaces or other invisible ones: it would keep no one out`,
      );
    return;
  }
  const open = [...(typeof ingress === 'string' ? [ingress] : ingress), admin].find(
    (url) => !isLoopback(new URL(url).hostname),
  );
  if (open !== undefined)
    throw new RestateTokenError(
      `--no-token is for a Restate server only this machine reaches, and ${open} is not on loopback: anyone who reaches it could start processes through the run objects`,
    );
}
