/**
 * The CLI's way to a running `statewright serve`: found from the server files beside the store (or
 * `--server URL`), called over its HTTP API. Runs of a lifecycle whose actors or timers must run
 * are started and moved only there: committing their events from a process that exits at once
 * would leave them with nothing to act on them. With several hosts on the store, an event for a
 * run another host holds is refused with `RunHeldError` naming it, and sent on to that host.
 */
import { Option } from 'commander';
import { lifecycles } from '../../machines/index.js';
import type { Lifecycles } from '../../machines/lifecycle.js';
import type { RunJson } from '../serve/run-json.js';
import { readServerFileOf, readServerFiles } from '../serve/server-file.js';
import { storeFiles } from './open-store.js';
import { ERROR_KINDS, StatewrightError, type ErrorKind } from '../errors.js';
import { hostNeeds } from '../graph/host-needs.js';

export const serverOption = () =>
  new Option(
    '--server <url>',
    'the statewright serve to send this through (default $STATEWRIGHT_SERVER, else one serving --store, found from the files the servers keep beside the store)',
  );
export const tokenOption = () =>
  new Option(
    '--token <secret>',
    "the server's token (default $STATEWRIGHT_TOKEN, else the one in the server's file beside the store)",
  );

export interface ServerTarget {
  readonly url: string;
  readonly token?: string;
  /** Where the store's servers keep their files: how the host that holds a run is found. */
  readonly serverDir?: string;
}

/**
 * A server that hosts the store, if one runs: the one `--server` names, else `STATEWRIGHT_SERVER`,
 * else the one started last. Its token is the one given (`--token`, else `STATEWRIGHT_TOKEN`),
 * else the one its server file holds (readable by this user only). Empty variables are unset.
 * `files: false`: no server file is read (nor the holder of a run looked up in them).
 */
export function findServer(
  values: { store?: string; server?: string; token?: string },
  { files: readsFiles = true }: { files?: boolean } = {},
): ServerTarget | undefined {
  const given = values.token ?? (process.env.STATEWRIGHT_TOKEN || undefined);
  const { serverDir } = readsFiles ? storeFiles(values.store) : {};
  const files = serverDir ? readServerFiles(serverDir) : [];
  const found = values.server ?? (process.env.STATEWRIGHT_SERVER || undefined) ?? files[0]?.url;
  if (found === undefined) return undefined;
  const url = trimUrl(found);
  const token = given ?? files.find((file) => trimUrl(file.url) === url)?.token ?? undefined;
  return { url, ...(token && { token }), ...(serverDir && { serverDir }) };
}

const trimUrl = (url: string) => url.replace(/\/+$/, '');

/**
 * `callServer`, sent on once to the host that holds the run when `server` answers `RunHeldError`
 * and that host serves on this machine (its server file is beside the store). Otherwise the
 * refusal stands: it names the holder.
 */
export async function callHolder<T>(
  server: ServerTarget,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<T & { server: ServerTarget }> {
  try {
    return { ...(await callServer<T>(server, method, path, body)), server };
  } catch (error) {
    const holder =
      error instanceof ServerRefusedError && error.name === 'RunHeldError'
        ? (error.body as { holder?: unknown }).holder
        : undefined;
    const held =
      typeof holder === 'string' && server.serverDir ? readServerFileOf(server.serverDir, holder) : undefined;
    if (!held || trimUrl(held.url) === server.url) throw error;
    // That host's own token, from its file: hosts on one store need not share one.
    const token = held.token ?? server.token;
    const next = { ...server, url: trimUrl(held.url), ...(token && { token }) };
    return { ...(await callServer<T>(next, method, path, body)), server: next };
  }
}

/** Why runs of `machine` need a host (hostNeeds: its actors, inline invokes and spawns, `after` delays), or undefined. */
export function needsHost(machine: string, registry: Lifecycles = lifecycles): string | undefined {
  const lifecycle = Object.hasOwn(registry, machine) ? registry[machine] : undefined;
  return lifecycle && hostNeeds(lifecycle.machine);
}

/** Start or send for such a run with no server to host it. */
export class NoServerError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'NoServerError';
  constructor(
    readonly machine: string,
    store: string | undefined,
    why: string,
  ) {
    super(
      `No statewright serve is running for this store, and ${machine} runs need one: ${why}. ` +
        `Start one with \`npx statewright serve${store ? ` --store ${store}` : ''}\` and run this again (or give --server <url>).`,
    );
  }
}

/** The server answered with an error: its typed error's name, kind and message, as if raised here, and the whole body. */
export class ServerRefusedError extends StatewrightError {
  override name: string;
  readonly kind: ErrorKind;
  constructor(
    readonly status: number,
    error: string,
    message: string,
    readonly body: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = error;
    const kind = body.kind;
    this.kind = typeof kind === 'string' && Object.hasOwn(ERROR_KINDS, kind) ? (kind as ErrorKind) : 'internal';
  }
}

/** The server named does not answer. */
export class ServerUnreachableError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'ServerUnreachableError';
  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(
      `The statewright serve at ${url} does not answer (${reason}). Is it running? Start it with \`npx statewright serve --store ...\`, or check --server (or STATEWRIGHT_SERVER).`,
    );
  }
}

export async function callServer<T>(
  server: ServerTarget,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...(server.token && { authorization: `Bearer ${server.token}` }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new ServerUnreachableError(server.url, cause?.code ?? cause?.message ?? (error as Error).message);
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ServerRefusedError(
      response.status,
      'ServerResponseError',
      `The server at ${server.url} answered ${response.status} with something that is not JSON: ${text.slice(0, 200)}`,
    );
  }
  if (!response.ok) {
    const { error, message } = json as { error?: string; message?: string };
    throw new ServerRefusedError(
      response.status,
      error ?? 'ServerError',
      message ?? `The server answered ${response.status}.`,
      typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {},
    );
  }
  return json as T;
}

export const runPath = (runId: string) => `/api/runs/${encodeURIComponent(runId)}`;

export type { RunJson };
