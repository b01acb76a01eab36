/**
 * `--engine restate:<ingress url>`: the commands that read or move runs (start, send, status,
 * history, explain, and serve's API and live view) work on runs hosted on Restate by `statewright
 * worker` instead of a store.
 * Several ingresses of one cluster are given comma-separated; `--restate-admin` names the admin API
 * that lists runs (default the first ingress's host, port 9070); `--restate-token` (else
 * STATEWRIGHT_RESTATE_TOKEN) the token `statewright worker` was started with, sent with every call.
 */
import { Option } from 'commander';
import type { RestateRuntime } from '../restate/restate-runtime.js';
import { UsageError } from './usage-error.js';

export const engineOption = () =>
  new Option(
    '--engine <engine>',
    'where the runs live: store (default: the --store), or restate:<ingress url>[,<ingress url>...] for runs hosted on Restate by statewright worker',
  );

export const restateAdminOption = () =>
  new Option(
    '--restate-admin <url>',
    "with --engine restate: Restate's admin API (default the ingress host, port 9070)",
  );

/** Where the CLI (the worker and its clients) reads the run objects' token when no option gives it. */
export const RESTATE_TOKEN_ENV = 'STATEWRIGHT_RESTATE_TOKEN';

/**
 * The token from the environment, once: taken out of this process's environment as it is read, so
 * no agent, check or hook the process starts inherits it (a worker's agents run as its runs say).
 */
export function takeRestateToken(): string | undefined {
  const token = process.env[RESTATE_TOKEN_ENV] || undefined;
  delete process.env[RESTATE_TOKEN_ENV];
  return token;
}

export const restateTokenOption = () =>
  new Option(
    '--restate-token <secret>',
    `with --engine restate: the token statewright worker was started with (default $${RESTATE_TOKEN_ENV})`,
  );

export interface EngineValues {
  readonly engine?: string;
  readonly restateAdmin?: string;
  readonly restateToken?: string;
}

/**
 * The Restate client `--engine` asks for, or undefined for the store. The client is loaded only
 * then: a command on a store or through a serve loads nothing of Restate's.
 */
export async function restateEngine(values: EngineValues): Promise<RestateRuntime | undefined> {
  const engine = values.engine;
  if (engine === undefined || engine === 'store') {
    if (values.restateAdmin !== undefined)
      throw new UsageError('--restate-admin goes with --engine restate:<ingress url>: give both, or neither.');
    if (values.restateToken !== undefined)
      throw new UsageError('--restate-token goes with --engine restate:<ingress url>: give both, or neither.');
    return undefined;
  }
  if (!engine.startsWith('restate:'))
    throw new UsageError(
      `--engine ${engine} is not an engine: give store, or restate:<ingress url> (e.g. --engine restate:http://127.0.0.1:8080).`,
    );
  const ingress = engine
    .slice('restate:'.length)
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  const first = ingress.map(parseUrl)[0];
  if (!first)
    throw new UsageError(
      '--engine restate: names no ingress: give its URL, e.g. --engine restate:http://127.0.0.1:8080.',
    );
  for (const url of ingress) parseUrl(url);
  const admin = values.restateAdmin ?? `${first.protocol}//${first.hostname}:9070`;
  parseUrl(admin);
  const fromEnv = takeRestateToken();
  const token = values.restateToken ?? fromEnv;
  const { restateRuntime } = await import('../restate/restate-runtime.js');
  return restateRuntime({ ingress, admin, ...(token && { token }) });
}

function parseUrl(url: string): URL {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed;
  } catch {}
  throw new UsageError(
    `'${url}' is not an http(s) URL: give the Restate ingress or admin URL, e.g. http://127.0.0.1:8080.`,
  );
}
