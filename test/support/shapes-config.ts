/**
 * A folder with a `statewright.config.ts` registering the machines of every shape
 * (test/graph/machine-shapes.ts, copied beside it as a user's own module), or of another module of
 * machines, for tests of `serve`, the CLI and the live view over machines statewright did not
 * write. The folder is inside node_modules, so the config's `xstate` import resolves as a user's
 * would; it is removed when the test ends.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

const shapes = fileURLToPath(new URL('../graph/machine-shapes.ts', import.meta.url));
const cache = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url));

/** The folder, its config registering each of MACHINE_SHAPES under its name (`writeShapesConfig`). */
export function shapesConfigDir(prefix: string): string {
  const dir = folderWith(prefix, shapes, 'machine-shapes.ts');
  writeShapesConfig(dir, 1);
  return dir;
}

/** (Re)writes the folder's config: every shape at lifecycle `version`, with no migration (a run of another version is set aside). */
export function writeShapesConfig(dir: string, version: number): void {
  writeMachinesConfig(dir, 'machine-shapes', 'MACHINE_SHAPES', version);
}

/**
 * The same for any module of machines that imports only xstate: `module` (a path) copied into lib/,
 * and each machine of its export `exported` (an object by name) registered under its name.
 */
export function machinesConfigDir(prefix: string, module: string, exported: string): string {
  const dir = folderWith(prefix, module, 'machines.ts');
  writeMachinesConfig(dir, 'machines', exported, 1);
  return dir;
}

/** A fresh folder under node_modules/.cache, removed when the test ends, with `module` copied to lib/`as`. */
function folderWith(prefix: string, module: string, as: string): string {
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, `statewright-${prefix}-`));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'lib'));
  copyFileSync(module, join(dir, 'lib', as));
  return dir;
}

function writeMachinesConfig(dir: string, file: string, exported: string, version: number): void {
  writeFileSync(
    join(dir, 'statewright.config.ts'),
    `import { ${exported} } from './lib/${file}';
export default {
  store: 'sqlite:runs.db',
  builtins: false,
  machines: Object.entries(${exported}).map(([name, machine]) => ({ name, machine, version: ${version}, summary: name })),
};
`,
  );
}
