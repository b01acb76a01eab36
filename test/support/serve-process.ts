/**
 * `statewright serve` as a child process for tests: the built CLI (`npm run build`), on a free
 * port, in its own process group ended with the test. Resolves once it prints its URL, that is once
 * its runs are restored and the API answers.
 */
import { fileURLToPath } from 'node:url';
import type { ResultPromise } from 'execa';
import { startCommand } from './child-processes.js';

const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));

export interface ServeProcess {
  readonly url: string;
  readonly child: ResultPromise<{ reject: false; cwd: string; env: Record<string, string> }>;
  /** Everything it printed so far. */
  stdout(): string;
  stderr(): string;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | undefined>;
}

export async function startServeProcess(cwd: string, args: readonly string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = startCommand(process.execPath, [bin, 'serve', '--port', '0', ...args], { reject: false, cwd, env });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const found = out.match(/^statewright serve: (http:\/\/\S+)/m);
      if (found) resolve(found[1]!);
    };
    child.stdout!.on('data', look);
    child.then((result) => reject(new Error(`serve exited with ${result.exitCode} before printing its URL:\n${err || out}`)));
  });
  return {
    url,
    child,
    stdout: () => out,
    stderr: () => err,
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      return (await child).exitCode;
    },
  };
}

/** Calls the API: the parsed JSON body and the status. */
export async function api<T = any>(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}
