/**
 * `statewright worker` as a child process for the Restate tests: the built CLI (`npm run build`), in
 * its own process group ended with the test, on a port the test chose (a worker started again after
 * a kill must come back at the same address: Restate keeps an invocation with the deployment it
 * began on). Resolves once the banner says how many actors it took over.
 */
import { fileURLToPath } from 'node:url';
import { startCommand } from '../support/child-processes.js';
import { RESTATE_TEST_TOKEN } from './restate-node.js';

const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));

export interface WorkerProcess {
  readonly pid: number;
  /** How many live actors it took over at start, as its banner said. */
  readonly adopted: number;
  stdout(): string;
  stderr(): string;
  /** SIGKILL, and the exit awaited. */
  kill(): Promise<void>;
  /** Sends `signal` (a graceful stop) and resolves with the exit code. */
  stop(signal: NodeJS.Signals): Promise<number | undefined>;
}

export interface WorkerProcessOptions {
  readonly admin: string;
  readonly ingress: readonly string[];
  readonly port: number;
  /** Where agents keep their logs and pid records. */
  readonly home: string;
  readonly cwd: string;
  /** A statewright.config.* for the worker's lifecycles. */
  readonly config?: string;
  /** The ferrus project whose checks the task lifecycle runs (`--task-dir`). */
  readonly taskDir?: string;
  /** The worker's token (default the test process's, `RESTATE_TEST_TOKEN`); false: `--no-token`. */
  readonly token?: string | false;
}

export async function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerProcess> {
  const child = startCommand(
    process.execPath,
    [
      bin,
      'worker',
      '--restate-admin',
      options.admin,
      '--restate-ingress',
      options.ingress.join(','),
      '--port',
      String(options.port),
      '--home',
      options.home,
      ...(options.config ? ['--config', options.config] : []),
      ...(options.taskDir ? ['--task-dir', options.taskDir] : []),
      ...(options.token === false ? ['--no-token'] : []),
    ],
    {
      cwd: options.cwd,
      reject: false,
      buffer: false,
      // The token from the environment, as the docs advise (an option shows in `ps`).
      env: { STATEWRIGHT_CONFIG: '', STATEWRIGHT_RESTATE_TOKEN: options.token || RESTATE_TEST_TOKEN },
    },
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const adopted = await new Promise<number>((resolve, reject) => {
    const onData = () => {
      const match = /^(\d+) actors taken over/m.exec(out);
      if (match) {
        child.stdout!.off('data', onData);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on('data', onData);
    void child.then(() => reject(new Error(`statewright worker exited before its banner:\n${out}\n${err}`)));
  });
  return {
    pid: child.pid!,
    adopted,
    stdout: () => out,
    stderr: () => err,
    stop: async (signal) => {
      child.kill(signal);
      return (await child).exitCode;
    },
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await child;
    },
  };
}
