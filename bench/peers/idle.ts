/**
 * One phase of the waiting-workflows measurement, in a process of its own (run with --expose-gc):
 *   idle.ts <key> populate <location> <count>  opens a fresh store, puts `count` workflows to wait,
 *     prints the heap and RSS they added per workflow, and exits without closing anything;
 *   idle.ts <key> recover <location> <count>   opens the system on that store and prints how long it
 *     took to be ready (from opening, imports excluded), then checks the workflows are all there.
 * Prints one line of JSON on stdout.
 */
import { sleeperKeys, sleepersFor, type SleeperKey } from './sleepers.js';

const [key, phase, location, countText] = process.argv.slice(2);
const count = Number(countText);
if (
  !sleeperKeys.includes(key as SleeperKey) ||
  !['populate', 'recover'].includes(phase!) ||
  !location ||
  !(count > 0)
) {
  console.error(
    `usage: idle.ts <${sleeperKeys.join('|')}> <populate|recover> <location> <count>; got ${process.argv.slice(2).join(' ')}`,
  );
  process.exit(2);
}
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('idle.ts measures memory after a full GC: run it with node --expose-gc');

const settled = () => {
  gc();
  gc();
  return process.memoryUsage();
};

const sleepers = await sleepersFor(key as SleeperKey);
if (phase === 'populate') {
  // A first hundred warms up the code paths and pools, so the delta is the waiting workflows' own.
  const WARM = 100;
  const open = await sleepers.open(location);
  await open.wait(WARM);
  const before = settled();
  const start = performance.now();
  await open.wait(count - WARM);
  const seconds = (performance.now() - start) / 1000;
  const after = settled();
  const measured = count - WARM;
  console.log(
    JSON.stringify({
      heapPerWorkflow: (after.heapUsed - before.heapUsed) / measured,
      rssPerWorkflow: (after.rss - before.rss) / measured,
      populateSeconds: seconds,
    }),
  );
} else {
  const start = performance.now();
  const check = await sleepers.recover(location, count);
  const readySeconds = (performance.now() - start) / 1000;
  const rss = process.memoryUsage().rss;
  await check();
  console.log(JSON.stringify({ readySeconds, rssWhenReady: rss }));
}
// Exit as a stopped process does: nothing closed, nothing finished (waiting workflows stay pending).
process.exit(0);
