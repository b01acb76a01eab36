/**
 * How statewright is run where the person is, for the commands it prints for them to paste (init's
 * "Next:", the completion's set-up, the demo's hints): `statewright` where that name on PATH is this
 * very program (a global install, a linked one), `npx statewright` where npx finds it (a local
 * install: the project's node_modules/.bin, or run by npx itself), else `node <its bin>`.
 */
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, relative } from 'node:path';

export interface InvokedAs {
  /** The program's own script (`process.argv[1]`). */
  readonly script?: string;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
}

const real = (path: string): string | undefined => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};

/** The nearest folders from `cwd` up whose node_modules/.bin npx reads. */
function* upFrom(cwd: string): Generator<string> {
  for (let dir = cwd; ; dir = dirname(dir)) {
    yield dir;
    if (dirname(dir) === dir) return;
  }
}

/** The words that run this statewright from `cwd`: `statewright`, `npx statewright` or `node <path>`. */
export function invocation({
  script = process.argv[1],
  cwd = process.cwd(),
  env = process.env,
}: InvokedAs = {}): string {
  const self = script === undefined ? undefined : real(script);
  if (self === undefined) return 'npx statewright';
  const names = process.platform === 'win32' ? ['statewright.cmd', 'statewright'] : ['statewright'];
  const isSelf = (file: string) => existsSync(file) && real(file) === self;
  // A node_modules/.bin on PATH is npx's or npm run's, put there for this process only: not the shell's.
  const shells = (env.PATH ?? '').split(delimiter).filter((dir) => dir && !/node_modules[\\/]\.bin[\\/]?$/.test(dir));
  for (const dir of shells) if (names.some((name) => isSelf(join(dir, name)))) return 'statewright';
  for (const dir of upFrom(cwd))
    if (names.some((name) => isSelf(join(dir, 'node_modules', '.bin', name)))) return 'npx statewright';
  // npx ran it from its cache (`npx statewright` with no local install): it will again.
  if (env.npm_command === 'exec') return 'npx statewright';
  // Its path from here when it is below here (a checkout: node bin/statewright.js), else in full.
  const below = relative(cwd, self);
  const path = below.startsWith('..') || isAbsolute(below) ? self : below;
  return `node ${/^[\w./@+-]+$/.test(path) ? path : JSON.stringify(path)}`;
}
