/**
 * `npm run bench`: runs every benchmark in this folder, one after another, in this process. The
 * start-up benches run the built CLI (bin/statewright.js on dist/): the build runs first when a
 * source changed since the last one (scripts/build-if-stale.mjs), as `npm start` does.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const benches = [
  './transition.bench.js',
  './runtime.bench.js',
  './step-cpu.bench.js',
  './review-loop.bench.js',
  './codon-costs.bench.js',
  './session-queries.bench.js',
  './runs-list.bench.js',
  './scale.bench.js',
  './restate.bench.js',
];
/** What a user's `statewright` costs from a cold start: they measure dist/, built when stale. */
const startupBenches = ['./cli-startup.bench.js', './mcp-startup.bench.js'];

for (const bench of benches) await import(bench);

const built = spawnSync(process.execPath, [fileURLToPath(new URL('../scripts/build-if-stale.mjs', import.meta.url))], {
  stdio: 'inherit',
});
if (built.status !== 0)
  throw new Error('the build failed: the start-up benches measure the built CLI (`npm run build`)');
for (const bench of startupBenches) await import(bench);
