/**
 * `npm start` and `npm run viz`: build only what is not built. The build (`npm run build`, its
 * steps read from package.json) runs when an output is missing or a source changed after the
 * oldest output was written (each step writes its outputs anew, so the oldest is the build's
 * first); then each step says what it does and how long it took. A fresh checkout after `npm ci`
 * (whose `prepare` built it) starts at once; an edited source rebuilds.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the build reads: folders (walked) and files, from the package root. */
export const INPUTS = [
  'src',
  'machines',
  'ui',
  'bin',
  'scripts/build-cli.mjs',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
];

/** One output of each step of the build: tsc, the CLI bundle and its command list, the view. */
export const OUTPUTS = ['dist/src/index.js', 'dist/cli/main.js', 'dist/cli/command-list.json', 'dist/ui/index.html'];

/** The newest file under `path` (a file or a folder), as [mtime in ms, path]; node_modules skipped. */
function newest(path) {
  if (!existsSync(path)) return [0, path];
  const stat = statSync(path);
  if (!stat.isDirectory()) return [stat.mtimeMs, path];
  let found = [stat.mtimeMs, path];
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules') continue;
    const inner = newest(join(path, entry));
    if (inner[0] > found[0]) found = inner;
  }
  return found;
}

/** Why `root` needs building, or undefined when every output is newer than every input. */
export function staleness(root, inputs = INPUTS, outputs = OUTPUTS) {
  const missing = outputs.find((file) => !existsSync(join(root, file)));
  if (missing) return `${missing} is missing`;
  const built = Math.min(...outputs.map((file) => statSync(join(root, file)).mtimeMs));
  const [changed, path] = inputs
    .map((input) => newest(join(root, input)))
    .reduce((a, b) => (b[0] > a[0] ? b : a), [0, '']);
  return changed > built ? `${relative(root, path)} changed since the last build` : undefined;
}

/** The steps of `npm run build` as package.json has them. */
export function buildSteps(root) {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return scripts.build.split('&&').map((step) => step.trim());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const why = staleness(root);
  if (why) {
    const steps = buildSteps(root);
    process.stderr.write(`statewright: building (${why}), ${steps.length} steps:\n`);
    const began = Date.now();
    for (const [i, step] of steps.entries()) {
      const at = Date.now();
      process.stderr.write(`  [${i + 1}/${steps.length}] ${step} ...`);
      // The package's own tools (tsc, vite) by name, as npm runs them.
      const PATH = [join(root, 'node_modules', '.bin'), process.env.PATH].join(delimiter);
      const run = spawnSync(step, {
        cwd: root,
        shell: true,
        stdio: ['ignore', 'inherit', 'inherit'],
        env: { ...process.env, PATH },
      });
      if (run.status !== 0) {
        process.stderr.write(`\nstatewright: the build failed at \`${step}\` (exit ${run.status ?? run.signal}).\n`);
        process.exit(run.status || 1);
      }
      process.stderr.write(` ${((Date.now() - at) / 1000).toFixed(1)} s\n`);
    }
    process.stderr.write(`statewright: built in ${((Date.now() - began) / 1000).toFixed(1)} s\n`);
  }
}
