/**
 * `statewright serve` as a child process for tests: the built CLI (`npm run build`), on a free
 * port, in its own process group ended with the test. Resolves once it has printed its whole
 * start-up banner (its URL, then how many runs it restored): its runs are restored, the API
 * answers and it listens for SIGINT and SIGTERM. Serve writes each banner line apart, so the lines
 * can arrive in separate chunks: what a test reads is waited for, never read at some moment.
 */
import { fileURLToPath } from 'node:url';
import type { ResultPromise } from 'execa';
import { startCommand } from './child-processes.js';

const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));

/** The last line of serve's start-up banner. */
const startedLine = /^\d+ runs restored.*; stop with Ctrl-C/m;

export interface ServeProcess {
  readonly url: string;
  /** The token it requires, read off the view's URL it printed (undefined with --no-token). */
  readonly token: string | undefined;
  /** The serve process itself (not its group: agents lead groups of their own). */
  readonly pid: number;
  readonly child: ResultPromise<{ reject: false; cwd: string; env: Record<string, string> }>;
  /** Everything it printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in its stdout once printed; rejects if it exits first. */
  printed(pattern: RegExp): Promise<RegExpMatchArray>;
  /** The same, in its stderr (its log: warnings and errors). */
  logged(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | undefined>;
}

export interface ServeProcessOptions {
  /**
   * A command that runs serve for the test, its arguments before serve's own: `['ip', 'netns',
   * 'exec', 'ns-a']` starts it in a network namespace (the command must exec serve, keeping its pid).
   */
  readonly within?: readonly string[];
  /** The statewright bin to run (default this checkout's): an installed package's, say. */
  readonly bin?: string;
}

export async function startServeProcess(
  cwd: string,
  args: readonly string[],
  env: Record<string, string> = {},
  options: ServeProcessOptions = {},
): Promise<ServeProcess> {
  const command = [...(options.within ?? []), process.execPath, options.bin ?? bin, 'serve', '--port', '0', ...args];
  const child = startCommand(command[0]!, command.slice(1), { reject: false, cwd, env });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = child.then((result) => result.exitCode);
  /** Resolves with the first match of `pattern` in what `stream` gave so far or gives next; rejects if serve exits first. */
  const waitFor = (stream: NodeJS.ReadableStream, text: () => string, pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const look = () => {
        const found = text().match(pattern);
        if (!found) return false;
        stream.off('data', look);
        resolve(found);
        return true;
      };
      if (look()) return;
      stream.on('data', look);
      // Every chunk is read before the exit resolves: a match in the last one is still seen.
      void exited.then(
        (code) => look() || reject(new Error(`serve exited with ${code} before printing ${pattern}:\n${err || out}`)),
      );
    });
  const printed = (pattern: RegExp) => waitFor(child.stdout!, () => out, pattern);
  const logged = (pattern: RegExp) => waitFor(child.stderr!, () => err, pattern);
  const url = (await printed(/^statewright serve: (http:\/\/\S+)/m))[1]!;
  const token = (await printed(/^The live view: \S+?(?:#token=(\S+))?$/m))[1];
  await printed(startedLine);
  if (token) tokens.set(url, token);
  return {
    url,
    token,
    pid: child.pid!,
    child,
    stdout: () => out,
    stderr: () => err,
    printed,
    logged,
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      return (await child).exitCode;
    },
  };
}

/** The token of each serve started here, by its URL: what `api` and `authOf` send. */
const tokens = new Map<string, string>();

/** The header that carries the token of the serve at `url`, as its own user's CLI would send it. */
export function authOf(url: string): Record<string, string> {
  const token = tokens.get(url);
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** Calls the API with the server's token (unless `headers` give their own): the parsed JSON body and the status. */
export async function api<T = any>(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...authOf(url), ...headers },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}
