/**
 * The processes a test starts. Child programs run as built JavaScript (`npm run build:test` emits
 * them, with what they import, into dist-test/), so each starts in a fraction of a second instead
 * of compiling TypeScript on the way. Every child runs in a process group of its own, and the group
 * is killed when the test ends, whether it passed, failed or timed out.
 */
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type Options, type ResultPromise } from 'execa';
import { onTestFinished } from 'vitest';
import { signalGroup } from '../../src/os/process-identity.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The built JavaScript of a child program, given its TypeScript source (a path or a file URL in the repository). */
export function builtProgram(source: string | URL): string {
  const path = source instanceof URL ? fileURLToPath(source) : resolve(source);
  const inRepository = relative(root, path);
  if (inRepository.startsWith('..') || !inRepository.endsWith('.ts'))
    throw new Error(`${path} is not a TypeScript source of this repository`);
  const built = join(root, 'dist-test', inRepository.replace(/\.ts$/, '.js'));
  if (!existsSync(built)) {
    throw new Error(
      `${built} is missing: build the test programs with \`npm run build:test\` (a new one must be listed in tsconfig.test-build.json)`,
    );
  }
  return built;
}

/**
 * Kills the process group led by `pid` (a child started with `detached: true`, or an agent, which
 * leads its own group) when the current test finishes, however it finishes. Call it as soon as the
 * process exists, before waiting on anything.
 */
export function endWithTest(pid: number | undefined): void {
  onTestFinished(() => void (pid !== undefined && signalGroup(pid, 'SIGKILL')));
}

/** Starts any command in its own process group, ended with the test. */
export function startCommand<O extends Options = {}>(
  file: string,
  args: readonly string[],
  options: O = {} as O,
): ResultPromise<O> {
  // `detached` changes no type of the result, only the process group.
  const child = execa(file, args, { ...options, detached: true }) as unknown as ResultPromise<O>;
  endWithTest(child.pid);
  return child;
}

/** Starts a built child program with node, in its own process group, ended with the test. */
export function startProgram<O extends Options = {}>(
  source: string | URL,
  args: readonly string[],
  options: O = {} as O,
): ResultPromise<O> {
  return startCommand(process.execPath, [builtProgram(source), ...args], options);
}
