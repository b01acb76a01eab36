/**
 * The client of a running `statewright serve`, shared by the CLI and `statewright mcp`: its HTTP
 * API called with the server's token, its typed refusals raised here as they were raised there.
 * With several hosts on the store, an event for a run another host holds is refused with
 * `RunHeldError` naming it, and sent on to that host (its server file is beside the store).
 */
import type { RunJson } from '../serve/run-json.js';
import { readServerFileOf } from '../serve/server-file.js';
import { ERROR_KINDS, StatewrightError, type ErrorKind } from '../errors.js';
import { httpCall, type HttpAnswer } from './http-call.js';

export interface ServerTarget {
  readonly url: string;
  readonly token?: string;
  /** Where the store's servers keep their files: how the host that holds a run is found. */
  readonly serverDir?: string;
}

export const trimUrl = (url: string) => url.replace(/\/+$/, '');

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
  let response: HttpAnswer;
  try {
    response = await httpCall(
      `${server.url}${path}`,
      method,
      {
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...(server.token && { authorization: `Bearer ${server.token}` }),
      },
      body === undefined ? undefined : JSON.stringify(body),
    );
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    throw new ServerUnreachableError(server.url, code ?? message ?? String(error));
  }
  const { status, text } = response;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ServerRefusedError(
      status,
      'ServerResponseError',
      `The server at ${server.url} answered ${status} with something that is not JSON: ${text.slice(0, 200)}`,
    );
  }
  if (status < 200 || status > 299) {
    const { error, message } = json as { error?: string; message?: string };
    throw new ServerRefusedError(
      status,
      error ?? 'ServerError',
      message ?? `The server answered ${status}.`,
      typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {},
    );
  }
  return json as T;
}

export const runPath = (runId: string) => `/api/runs/${encodeURIComponent(runId)}`;

export type { RunJson };
