/**
 * `statewright serve`: the lifecycle host, its HTTP API and, on request, the Stately inspector
 * bridge, for as long as the process runs. The port is bound before any run is recovered, so a
 * taken port costs nothing; the host's server file beside the store tells the CLI where the API is.
 * Several serves may share one store: each is a host with its own id, holding its runs by leases.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { startInspector, type LiveInspector } from '../inspect/inspector.js';
import { isLoopback } from '../secret-token.js';
import type { LogEntry, Runtime, RuntimeError } from '../runtime/index.js';
import { DEFAULT_HIBERNATION } from '../runtime/hosting/hibernation.js';
import { DEFAULT_LEASE_TTL_MS } from '../runtime/hosting/lease-keeper.js';
import type { Store } from '../stores/index.js';
import type { Lifecycles } from '../../machines/lifecycle.js';
import type { MachineActors } from '../actor-contract/run-handle.js';
import type { ConfigSource, Registry } from '../config/index.js';
import { apiApp } from './api-app.js';
import { ConfigReloads, type ReloadOutcome } from './config-reload.js';
import { RequestGate } from './request-gate.js';
import { startLifecycleHost, type LifecycleHost } from './lifecycle-host.js';
import { PortInUseError, TokenRequiredError } from './serve-errors.js';
import { checkHostId } from './host-id.js';
import { HostIdInUseError, readServerFileOf, removeServerFile, writeServerFile } from './server-file.js';
import { ScopedCredentials } from './scoped-credential.js';
import { StepStreams } from './step-stream.js';
import { checkToken, newToken } from './serve-token.js';
import { VIEW_HEADERS } from './view-headers.js';
import { viewUrl } from './view-url.js';

export const DEFAULT_PORT = 4680;
export const DEFAULT_INSPECT_PORT = 8080;
/** How long a host's hold on a run lasts without a heartbeat, unless `--lease-ttl` says otherwise: the runtime's default. */
export { DEFAULT_LEASE_TTL_MS };
/** Below this, a busy machine's pauses (a GC, a slow disk) would cost a host its runs. */
export const MIN_LEASE_TTL_MS = 500;
/** How long a run stays in memory idle, unless `--hibernate-after` says otherwise: the runtime's default. */
export const DEFAULT_HIBERNATE_AFTER_MS = DEFAULT_HIBERNATION.afterIdleMs;

export interface ServeOptions {
  readonly store: Store;
  /** Where the services keep their files (session logs, review loops). */
  readonly home: string;
  readonly taskDir: string;
  readonly host: string;
  readonly port: number;
  /**
   * The token every request must show: a random one when undefined (the default, as Jupyter does);
   * false for none, which only a loopback address may do (`--no-token`).
   */
  readonly token?: string | false;
  /** More names the `Host` header may give besides this server's address and localhost (`--allowed-host`). */
  readonly allowedHosts?: readonly string[];
  /** Origins whose web pages may call the API (`--cors-origin`). */
  readonly corsOrigins?: readonly string[];
  /** Serve the Stately inspector bridge on this port. */
  readonly inspectPort?: number;
  /**
   * This host's id: the holder its leases name (default: hostname:pid:random). Another live serve
   * of the same id on this store is `HostIdInUseError`.
   */
  readonly hostId?: string;
  /** How long its hold on a run lasts without a heartbeat (default `DEFAULT_LEASE_TTL_MS`), on a store with leases. */
  readonly leaseTtlMs?: number;
  /** After how long idle a run leaves memory (default `DEFAULT_HIBERNATE_AFTER_MS`); false keeps every run in memory. */
  readonly hibernateAfterMs?: number | false;
  /** `<store>.serve/`, where each host keeps its server file; none for a store no other process can open (memory). */
  readonly serverDir?: string;
  readonly handOverFile?: string;
  readonly uiDir: string;
  /**
   * How to start `statewright mcp` (node and the statewright bin): every session this host
   * launches gets it as its permission prompt tool, pointed at this server, unless its config
   * names its own. None: sessions run with what their config says.
   */
  readonly mcpCommand?: { readonly command: string; readonly args: readonly string[] };
  /** The lifecycles to host (default the built-in ones): a config's, with the actors it gives them. */
  readonly machines?: Lifecycles;
  /**
   * Runs hosted elsewhere, to serve instead of hosting the store's (`serve --engine restate:`, see
   * `restateViewRuntime`): the API and the live view read and move them through it; nothing is
   * hosted, recovered or handed over here, and `store` is the engine's own.
   */
  readonly engine?: Runtime;
  readonly actors?: MachineActors;
  /**
   * The config `machines` and `actors` come from, read from its file: serve watches its files and
   * loads it again when they change (see config-reload.ts). Not with `engine`.
   */
  readonly config?: Registry & { readonly source: ConfigSource };
  /** Told of each config reload that did something: loaded, refused, or the files back as they were. */
  readonly onConfigReload?: (outcome: Exclude<ReloadOutcome, { kind: 'unchanged' }>) => void;
  readonly onError?: (error: RuntimeError) => void;
  readonly onLog?: (entry: LogEntry) => void;
}

export interface RunningServer {
  /** Where the API and the live view answer. */
  readonly url: string;
  /** The token requests must show; undefined with `token: false`. */
  readonly token: string | undefined;
  /** The live view's address for a person: with `#token=` when there is one (view-url.ts). */
  readonly viewUrl: string;
  /** The host's id, the holder its leases name. */
  readonly hostId: string;
  /** Its lease TTL; undefined when the store has no leases (one host keeps every run). */
  readonly leaseTtlMs: number | undefined;
  readonly inspectorUrl?: string;
  /** The host of the lifecycles: a new one after each config reload. */
  readonly lifecycles: LifecycleHost;
  /** The config serve runs and its reloads; undefined when serve runs no config file (or an engine's runs). */
  readonly config: ConfigReloads | undefined;
  /** `handOver`: agents keep running for the next serve to adopt (SIGINT, SIGTERM). The store stays open. */
  close(options: { handOver: boolean }): Promise<void>;
}

/** Whether `host` is reachable only from this machine. */
export { isLoopback };

export async function startServe(options: ServeOptions): Promise<RunningServer> {
  if (!isLoopback(options.host) && options.token === false) throw new TokenRequiredError(options.host);
  const token =
    options.token === false ? undefined : options.token === undefined ? newToken() : checkToken(options.token);
  // Each session's agent gets a credential scoped to its session, derived from the token (scoped-credential.ts).
  const scoped = token === undefined ? undefined : new ScopedCredentials(token);
  if (options.hostId !== undefined) checkHostId(options.hostId);
  // Refused before a run is claimed: two live hosts of one id would both count as holding its runs.
  const taken =
    options.serverDir !== undefined && options.hostId !== undefined
      ? readServerFileOf(options.serverDir, options.hostId)
      : undefined;
  if (taken) throw new HostIdInUseError(taken);
  const leaseTtlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const hibernateAfterMs = options.hibernateAfterMs ?? DEFAULT_HIBERNATE_AFTER_MS;
  let handle: (request: IncomingMessage, response: ServerResponse) => unknown = (_req, res) => {
    res
      .writeHead(503, { ...VIEW_HEADERS, 'content-type': 'application/json' })
      .end(JSON.stringify({ error: 'Starting', message: 'The server is restoring its runs: try again in a moment.' }));
  };
  const server = createServer((req, res) => void handle(req, res));
  const port = await listen(server, options.host, options.port, 'API', '--port');
  const shown =
    options.host === '0.0.0.0' || options.host === '::'
      ? '127.0.0.1'
      : options.host.includes(':')
        ? `[${options.host}]`
        : options.host;
  const url = `http://${shown}:${port}`;
  let inspector: LiveInspector | undefined;
  try {
    if (options.inspectPort !== undefined) {
      // On 127.0.0.1 whatever --host is, behind the same Host, Origin and token checks as the API.
      inspector = await startInspector({
        port: options.inspectPort,
        token: token ?? false,
        listen: (bridge, host, port) => listen(bridge, host, port, 'Stately inspector bridge', '--inspect-port'),
      });
    }
    const hostOn = (
      machines: Lifecycles | undefined,
      actors: MachineActors | undefined,
      handedOverBy: readonly string[] = [],
      owner = options.hostId,
    ) =>
      startLifecycleHost({
        store: options.store,
        ...(machines && { machines }),
        ...(actors && { actors }),
        home: options.home,
        taskDir: options.taskDir,
        ...(options.mcpCommand && {
          permissionPrompt: {
            ...options.mcpCommand,
            url,
            ...(options.serverDir !== undefined && { serverDir: options.serverDir }),
            ...(scoped && { credential: (id: string) => scoped.forSession(id) }),
          },
        }),
        runtime: {
          ...(owner !== undefined && { owner }),
          leases: { ttlMs: leaseTtlMs },
          hibernate: hibernateAfterMs === false ? false : { afterIdleMs: hibernateAfterMs },
        },
        ...(options.handOverFile && { handOverFile: options.handOverFile }),
        handedOverBy,
        ...(inspector && { inspect: inspector.inspect }),
        ...(options.onError && { onError: options.onError }),
        ...(options.onLog && { onLog: options.onLog }),
      });
    let lifecycles = options.engine ? servedEngine(options.engine) : await hostOn(options.machines, options.actors);
    const steps = new StepStreams(lifecycles.runtime);
    const hosting = {
      leaseTtlMs: options.store.leases ? leaseTtlMs : undefined,
      hibernateAfterMs: options.store.leases ? hibernateAfterMs : false,
    };
    const guard = {
      boundHost: options.host,
      ...(options.allowedHosts && { allowedHosts: options.allowedHosts }),
      ...(options.corsOrigins && { corsOrigins: options.corsOrigins }),
    };
    let config: ConfigReloads | undefined;
    const appOn = (host: LifecycleHost) =>
      getRequestListener(
        apiApp({
          runtime: host.runtime,
          start: host.start,
          steps,
          uiDir: options.uiDir,
          hosting,
          guard,
          ...(token && { token }),
          config: () => config?.status(),
        }).fetch,
      );
    const requests = new RequestGate(appOn(lifecycles));
    handle = (req, res) => requests.handle(req, res);
    if (options.config && !options.engine) {
      let machines: Lifecycles = options.config.machines;
      let actors: MachineActors = options.config.actors;
      config = new ConfigReloads({
        registry: options.config,
        store: options.store,
        // The host restarted on the new config, as a restart would, with requests held meanwhile:
        // what is queued is applied, the runs are handed over (their agents keep running) and the
        // new host restores them, migrated or set aside. If it cannot start, the old config is put back.
        apply: (next) =>
          requests.hold(async () => {
            const handedOverBy = await lifecycles.close({ handOver: true });
            const owner = lifecycles.runtime.owner.id;
            let host: LifecycleHost;
            try {
              host = await hostOn(next.machines, next.actors, handedOverBy, owner);
            } catch (error) {
              try {
                lifecycles = await hostOn(machines, actors, handedOverBy, owner);
              } catch (again) {
                requests.serve(unavailable(again as Error));
                throw again;
              }
              steps.follow(lifecycles.runtime, 'serve could not load a new config and restarted on the one before');
              requests.serve(appOn(lifecycles));
              throw error;
            }
            lifecycles = host;
            machines = next.machines;
            actors = next.actors;
            steps.follow(host.runtime, 'serve loaded a new config: its runs were restored under it');
            requests.serve(appOn(host));
            return { restored: host.runtime.restoredAtStart.length, setAside: host.runtime.setAside() };
          }),
        told: (outcome) => options.onConfigReload?.(outcome),
        watchFailed: (error) =>
          options.onLog?.({
            runId: '',
            level: 'warn',
            message: `cannot watch the config's files (${error.message}): serve loads a changed config only when restarted`,
            at: Date.now(),
          } as LogEntry),
      });
      config.watch();
    }
    const hostId = lifecycles.runtime.owner.id;
    if (options.serverDir) {
      try {
        writeServerFile(options.serverDir, { hostId, url, token });
      } catch (error) {
        await lifecycles.close({ handOver: true });
        throw error;
      }
    }
    let closing: Promise<void> | undefined;
    return {
      url,
      token,
      viewUrl: viewUrl(url, token),
      hostId,
      leaseTtlMs: hosting.leaseTtlMs,
      ...(inspector && { inspectorUrl: inspector.url }),
      get lifecycles() {
        return lifecycles;
      },
      config,
      close: ({ handOver }) =>
        (closing ??= (async () => {
          config?.close();
          // A reload under way finishes first: its host is the one to close.
          await requests.held();
          if (options.serverDir) removeServerFile(options.serverDir, hostId);
          const stopped = new Promise((resolve) => server.close(resolve));
          steps.close();
          server.closeIdleConnections();
          await lifecycles.close({ handOver });
          server.closeAllConnections();
          await stopped;
          inspector?.stop();
        })()),
    };
  } catch (error) {
    inspector?.stop();
    server.close();
    throw error;
  }
}

/** Runs hosted elsewhere (`ServeOptions.engine`) in the place of the lifecycle host: started and closed through it. */
function servedEngine(engine: Runtime): LifecycleHost {
  return {
    runtime: engine,
    adopted: 0,
    start: (machine, options) => engine.start(machine, options),
    close: async () => {
      await engine.close();
      return [];
    },
  };
}

/** Every request answered 503: serve's host could not be started again after a reload (it says why). */
function unavailable(error: Error): (request: IncomingMessage, response: ServerResponse) => void {
  return (_request, response) => {
    response.writeHead(503, { ...VIEW_HEADERS, 'content-type': 'application/json' }).end(
      JSON.stringify({
        error: 'HostRestartError',
        kind: 'unavailable',
        message: `serve could not start its host again after a config reload (${error.message}): restart serve.`,
      }),
    );
  };
}

/** Binds `server`, turning a taken port into `PortInUseError`; resolves with the port bound. */
function listen(server: Server, host: string, port: number, what: string, option: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(what, host, port, option) : error);
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve((server.address() as { port: number }).port);
    });
  });
}
