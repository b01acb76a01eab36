/**
 * A `statewright.config.mjs` of one's own in a test's folder: the lifecycles given (as config text,
 * with XState's createMachine, fromPromise and spawnChild in scope), the built-ins left out.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export function configWith(cwd: string, ...lifecycles: string[]): void {
  const xstate = pathToFileURL(createRequire(import.meta.url).resolve('xstate')).href;
  writeFileSync(
    join(cwd, 'statewright.config.mjs'),
    `import { createMachine, fromPromise, spawnChild } from '${xstate}';\nexport default { builtins: false, machines: [${lifecycles.join(', ')}] };\n`,
  );
}
