/**
 * A folder with a `statewright.config.ts` registering the machines of every shape
 * (test/graph/machine-shapes.ts, copied beside it as a user's own module), for tests of `serve`
 * and the live view over machines statewright did not write. The folder is inside node_modules,
 * so the config's `xstate` import resolves as a user's would; it is removed when the test ends.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

const shapes = fileURLToPath(new URL('../graph/machine-shapes.ts', import.meta.url));
const cache = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url));

/** The folder, its config registering each of MACHINE_SHAPES under its name (`writeShapesConfig`). */
export function shapesConfigDir(prefix: string): string {
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, `statewright-${prefix}-`));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'lib'));
  copyFileSync(shapes, join(dir, 'lib', 'machine-shapes.ts'));
  writeShapesConfig(dir, 1);
  return dir;
}

/** (Re)writes the folder's config: every shape at lifecycle `version`, with no migration (a run of another version is set aside). */
export function writeShapesConfig(dir: string, version: number): void {
  writeFileSync(
    join(dir, 'statewright.config.ts'),
    `import { MACHINE_SHAPES } from './lib/machine-shapes';
export default {
  store: 'sqlite:runs.db',
  builtins: false,
  machines: Object.entries(MACHINE_SHAPES).map(([name, machine]) => ({ name, machine, version: ${version}, summary: name })),
};
`,
  );
}
