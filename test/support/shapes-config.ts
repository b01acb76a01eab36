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

/** The folder, its config registering each of MACHINE_SHAPES under its name, and `extra` config text in its object. */
export function shapesConfigDir(prefix: string, extra = ''): string {
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, `statewright-${prefix}-`));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'lib'));
  copyFileSync(shapes, join(dir, 'lib', 'machine-shapes.ts'));
  writeFileSync(
    join(dir, 'statewright.config.ts'),
    `import { MACHINE_SHAPES } from './lib/machine-shapes';
export default {
  store: 'sqlite:runs.db',
  builtins: false,
  machines: Object.entries(MACHINE_SHAPES).map(([name, machine]) => ({ name, machine, version: 1, summary: name })),
  ${extra}
};
`,
  );
  return dir;
}
