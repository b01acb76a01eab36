/**
 * `restateEndpoint({ machines, actors })`: the Restate services that host statewright's lifecycles.
 * One virtual object per lifecycle keyed by run id (run-object.ts), the run directory, and, when
 * actors are given, the actor host that performs the runs' actors in this process and reports back
 * through `ingress`. `listen` serves them over HTTP/2 for a Restate server to call; registering the
 * endpoint with that server is the worker's job (`statewright worker`, or `AdminClient.register`).
 */
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import * as restate from '@restatedev/restate-sdk';
import type { Lifecycles } from '../../machines/lifecycle.js';
import type { Clock } from '../actor-contract/clock.js';
import type { MachineActors } from '../actor-contract/run-handle.js';
import type { StartInput } from '../runtime/lifecycle-wiring.js';
import { ActorHost, actorHostObject, type ActorLog } from './actor-host.js';
import { callerCheck } from './caller-check.js';
import { REFUSED_STATUS } from './restate-errors.js';
import { IngressClient } from './ingress-client.js';
import { RestateSetupError } from './restate-errors.js';
import { runDirectory } from './run-directory.js';
import { runObject } from './run-object.js';
import { RunSteps } from './run-steps.js';

export interface RestateEndpointOptions {
  /** The lifecycles to host: the built-ins (`lifecycles`), a config's registry, or both. */
  readonly machines: Lifecycles;
  /**
   * The real actors, by machine then by name, as `createRuntime({ actors })` takes them. Given, this
   * endpoint also performs the runs' actors (it is a worker) and reports what they send to `ingress`.
   */
  readonly actors?: MachineActors;
  /** The ingress (or each node's ingress) the actors report through; needed with `actors`. */
  readonly ingress?: string | readonly string[];
  /**
   * What each lifecycle's service fills in a run's input at its start, by machine, as `statewright
   * serve` does on a store (a session's `created_at` and `log_path` under the worker's home:
   * `workerStartInputs`): a run started with less is given them by its run object.
   */
  readonly startInputs?: Readonly<Record<string, StartInput>>;
  readonly onLog?: (entry: ActorLog) => void;
  /**
   * The clock deadlines are counted on: a deadline actor's event is due when this clock reads its
   * deadline. Default the time Restate journals for the call; tests give a manual clock, whose
   * deadlines are then as far away in real time as they are ahead of it.
   */
  readonly clock?: Clock;
  /**
   * The Restate servers' request identity public keys (`publickeyv1_...`): given, a request not signed
   * by one of them is refused, so only those servers can call the run objects. Without, anyone who
   * reaches the endpoint's port can (keep it on loopback or a private network).
   */
  readonly identityKeys?: readonly string[];
  /**
   * The token every call through the ingress must show (`Authorization: Bearer <token>`), checked by
   * each handler before anything else; the actor host reports with it too. `false`: none asked, for
   * a Restate server whose ingress only this machine reaches (see caller-check.ts and docs/restate.md).
   */
  readonly token: string | false;
  /** Origins whose web pages may call the run objects (a call with any other `Origin` is refused). */
  readonly allowedOrigins?: readonly string[];
}

export interface RestateEndpoint {
  readonly services: ReadonlyArray<restate.VirtualObjectDefinition<string, unknown>>;
  /** The actor host, when actors were given. */
  readonly actorHost: ActorHost | undefined;
  /** Serves the endpoint on `port` (0: any free port) of `host` (default loopback). */
  listen(port: number, host?: string): Promise<ListeningEndpoint>;
}

export interface ListeningEndpoint {
  readonly port: number;
  /** What to register with Restate (`http://host:port`). */
  readonly url: string;
  close(): Promise<void>;
}

export function restateEndpoint(options: RestateEndpointOptions): RestateEndpoint {
  const { machines } = options;
  const steps = new RunSteps(machines);
  const check = callerCheck({
    token: options.token,
    ...(options.allowedOrigins && { allowedOrigins: options.allowedOrigins }),
  });
  let actorHost: ActorHost | undefined;
  if (options.actors) {
    if (!options.ingress || options.ingress.length === 0)
      throw new RestateSetupError(
        'actors are given but no ingress to report their events through: pass restateEndpoint({ ingress })',
      );
    actorHost = new ActorHost(
      options.actors,
      new IngressClient(options.ingress, options.token === false ? {} : { token: options.token }),
      options.onLog,
    );
  }
  const services = [
    ...Object.keys(machines).map((machine) =>
      runObject(machine, {
        steps,
        worker: actorHost !== undefined,
        clock: options.clock,
        startInput: options.startInputs?.[machine],
        check,
      }),
    ),
    runDirectory(machines, check),
    ...(actorHost ? [actorHostObject(actorHost)] : []),
  ] as unknown as ReadonlyArray<restate.VirtualObjectDefinition<string, unknown>>;
  return {
    services,
    actorHost,
    listen: (port, host = '127.0.0.1') =>
      new Promise((resolve, reject) => {
        const server = http2.createServer(
          restate.createEndpointHandler({
            services: [...services],
            logger: sdkLogger(options.onLog),
            ...(options.identityKeys && { identityKeys: [...options.identityKeys] }),
          }),
        );
        server.once('error', reject);
        server.listen(port, host, () => {
          const bound = (server.address() as AddressInfo).port;
          resolve({
            port: bound,
            url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
            close: () =>
              new Promise<void>((done) => {
                server.close(() => done());
                // Restate keeps its HTTP/2 sessions open: they are ended, not waited for.
                for (const session of sessions) session.destroy();
              }),
          });
        });
        const sessions = new Set<http2.Http2Session>();
        server.on('session', (session) => {
          sessions.add(session);
          session.once('close', () => sessions.delete(session));
        });
      }),
  };
}

/**
 * The SDK's own log: its warnings and errors (a handler that failed and will be retried) to `onLog`,
 * or to stderr. A caller refused (caller-check.ts) is one short line naming the call, not the advice
 * the refusal gives its caller.
 */
function sdkLogger(onLog: RestateEndpointOptions['onLog']): restate.LoggerTransport {
  const refusals = new Set<number>(Object.values(REFUSED_STATUS));
  return (meta, message, ...rest) => {
    if (meta.replaying || (meta.level !== 'warn' && meta.level !== 'error')) return;
    const refused = rest.find((part) => part instanceof restate.TerminalError && refusals.has(part.code));
    const text = refused
      ? `call to ${meta.context?.invocationTarget ?? 'a handler'} refused: ${(refused as Error).message.split(': ')[0]}`
      : [message, ...rest].map((part) => (part instanceof Error ? part.message : String(part))).join(' ');
    if (onLog) onLog({ runId: '', level: meta.level, message: `restate: ${text}` });
    else process.stderr.write(`statewright restate endpoint ${meta.level}: ${text}\n`);
  };
}
