/**
 * One Restate node with statewright's endpoint registered on it, for a test file: the node from the
 * npm package (restate-node.ts), the endpoint served by this process on a free loopback port, and a
 * client. `stop` closes the client and the endpoint and kills the node, also after a failed start.
 */
import type { Lifecycles } from '../../machines/lifecycle.js';
import type { Clock } from '../../src/actor-contract/clock.js';
import type { MachineActors } from '../../src/actor-contract/run-handle.js';
import {
  AdminClient,
  restateEndpoint,
  restateRuntime,
  workerStartInputs,
  type ActorLog,
  type ListeningEndpoint,
  type RestateEndpoint,
  type RestateRuntime,
} from '../../src/restate/index.js';
import { startRestateNode, type RestateNode } from './restate-node.js';

export interface RestateHost {
  readonly node: RestateNode;
  readonly endpoint: RestateEndpoint;
  readonly listening: ListeningEndpoint;
  readonly runtime: RestateRuntime;
  readonly logs: ActorLog[];
  stop(): Promise<void>;
}

export async function startRestateHost(options: {
  machines: Lifecycles;
  actors?: MachineActors;
  /** The endpoint's clock for deadlines and the client's for `at` (default the system clock for both). */
  clock?: Clock;
  /** The worker's home: given, the run objects fill a session's `created_at` and `log_path` (under `sessions/`) as a worker does. */
  home?: string;
  /** Web page origins the run objects take calls from (with the token). */
  allowedOrigins?: readonly string[];
}): Promise<RestateHost> {
  const node = await startRestateNode();
  let listening: ListeningEndpoint | undefined;
  try {
    const logs: ActorLog[] = [];
    const endpoint = restateEndpoint({
      machines: options.machines,
      token: node.token,
      ...(options.allowedOrigins && { allowedOrigins: options.allowedOrigins }),
      ...(options.actors && { actors: options.actors, ingress: node.ingress }),
      ...(options.clock && { clock: options.clock }),
      ...(options.home && { startInputs: workerStartInputs({ machines: options.machines, home: options.home }) }),
      onLog: (entry) => logs.push(entry),
    });
    listening = await endpoint.listen(0);
    await new AdminClient(node.admin).register(listening.url);
    const runtime = restateRuntime({
      ingress: node.ingress,
      admin: node.admin,
      token: node.token,
      pollMs: 50,
      ...(options.clock && { clock: options.clock }),
    });
    const opened = listening;
    return {
      node,
      endpoint,
      listening: opened,
      runtime,
      logs,
      stop: async () => {
        await runtime.close().catch(() => {});
        await endpoint.actorHost?.close();
        await opened.close();
        await node.stop();
      },
    };
  } catch (error) {
    await listening?.close();
    await node.stop();
    throw error;
  }
}
