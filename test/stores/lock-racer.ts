/**
 * One racer for the stale-lock test: for each line `<lock path> <start at (epoch ms)>` on stdin it
 * spins until that instant (so all racers go at once), tries to take the lock and prints
 * `{"lock":..., "won":true}` or `{"lock":..., "won":false, "error":"<name>: <message>"}`. It never
 * releases what it won: a winner stays a live holder until the test ends it.
 * Usage: node dist-test/test/stores/lock-racer.js
 */
import { createInterface } from 'node:readline';
import { acquireLock } from '../../src/stores/json-file/file-lock.js';

for await (const line of createInterface({ input: process.stdin })) {
  const [lock, startAt] = line.split(' ') as [string, string];
  while (Date.now() < Number(startAt)) {
    // Spin: a timer would wake each racer at a different moment.
  }
  let answer: { lock: string; won: boolean; error?: string };
  try {
    acquireLock(lock);
    answer = { lock, won: true };
  } catch (error) {
    answer = { lock, won: false, error: `${(error as Error).name}: ${(error as Error).message}` };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
