/** `npm run bench`: runs every benchmark in this folder, one after another, in this process. */
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
for (const bench of benches) await import(bench);
