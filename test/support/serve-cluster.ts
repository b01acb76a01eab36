/**
 * Several `statewright serve` processes on one store, each with its own host id, for the tests
 * that kill, pause and cut off hosts. Which hosts are up is known here, so a test can route an
 * event to the host that holds a run and never to one it has stopped. Every process is ended with
 * the test (see child-processes.ts), paused or not: SIGKILL ends a stopped process too.
 */
import { onTestFinished } from 'vitest';
import { startServeProcess, type ServeProcess, type ServeProcessOptions } from './serve-process.js';

export type HostState = 'up' | 'paused' | 'killed' | 'stopped';

export interface ClusterHost {
  readonly id: string;
  readonly serve: ServeProcess;
  state: HostState;
}

export interface ServeClusterOptions {
  /** The folder every serve runs in: sharing it, they share the session logs (agents can be adopted). */
  readonly cwd: string;
  /** Serve's arguments for a host with this id (`--store`, `--host-id`, `--lease-ttl`...). */
  readonly args: (id: string) => readonly string[];
  readonly env?: Record<string, string>;
  /** How each host is started (for example inside a network namespace). */
  readonly process?: (id: string) => ServeProcessOptions;
}

export class ServeCluster {
  readonly #hosts = new Map<string, ClusterHost>();

  constructor(readonly options: ServeClusterOptions) {
    // SERVE_CLUSTER_LOGS=1 prints what every host said, when the test ends: for finding out why one failed.
    if (process.env.SERVE_CLUSTER_LOGS)
      onTestFinished(
        () =>
          void this.all().forEach((host) =>
            console.log(`--- ${host.id} (${host.state})\n${host.serve.stdout()}${host.serve.stderr()}`),
          ),
      );
  }

  async start(id: string): Promise<ClusterHost> {
    if (this.#hosts.has(id)) throw new Error(`host '${id}' was started already: give a restarted host a new id`);
    const serve = await startServeProcess(
      this.options.cwd,
      this.options.args(id),
      this.options.env ?? {},
      this.options.process?.(id) ?? {},
    );
    const host: ClusterHost = { id, serve, state: 'up' };
    this.#hosts.set(id, host);
    return host;
  }

  host(id: string): ClusterHost {
    const host = this.#hosts.get(id);
    if (!host) throw new Error(`no host '${id}' in this cluster (hosts: ${[...this.#hosts.keys()].join(', ')})`);
    return host;
  }

  /** Every host started, in start order. */
  all(): ClusterHost[] {
    return [...this.#hosts.values()];
  }

  /** The hosts that answer now. */
  up(): ClusterHost[] {
    return this.all().filter((host) => host.state === 'up');
  }

  /** The URL of host `id` if it answers now. */
  urlOf(id: string | undefined): string | undefined {
    const host = id === undefined ? undefined : this.#hosts.get(id);
    return host?.state === 'up' ? host.serve.url : undefined;
  }

  /** SIGKILL, then waits for the exit: from then on nothing of it runs but the agents it started. */
  async kill(id: string): Promise<number> {
    const host = this.host(id);
    const at = Date.now();
    host.state = 'killed';
    host.serve.child.kill('SIGKILL');
    await host.serve.child;
    return at;
  }

  /** SIGTERM: a graceful stop that hands its runs over (agents running) to the other hosts; resolves with its exit code. */
  async stop(id: string): Promise<number | undefined> {
    const host = this.host(id);
    host.state = 'stopped';
    return host.serve.stop('SIGTERM');
  }

  /** SIGSTOP: the process and its sockets stay, it runs nothing (no renewal, no timer, no request). */
  pause(id: string): number {
    const host = this.host(id);
    if (host.state !== 'up') throw new Error(`host '${id}' is ${host.state}: only a host that is up can be paused`);
    process.kill(host.serve.pid, 'SIGSTOP');
    host.state = 'paused';
    return Date.now();
  }

  resume(id: string): void {
    const host = this.host(id);
    if (host.state !== 'paused') throw new Error(`host '${id}' is ${host.state}: only a paused host can be resumed`);
    process.kill(host.serve.pid, 'SIGCONT');
    host.state = 'up';
  }
}
