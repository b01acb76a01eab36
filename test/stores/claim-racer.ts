/**
 * One racer of the claim race (lease-race.test.ts): opens the store, prints `{"ready":true}`, then
 * for the line `<start at (epoch ms)> <dueBy>` on stdin spins until that instant (so all racers go
 * at once) and sweeps (`claimDue`, a few runs at a time) until a sweep finds nothing, printing
 * `{"claims":[{"runId","epoch","previousEpoch"}...]}`.
 *
 * Usage: node dist-test/test/stores/claim-racer.js <sqlite|postgres> <location> <holder id>
 * (for postgres the location is a schema; the server is DATABASE_URL or 127.0.0.1:5432/test)
 */
import { createInterface } from 'node:readline';
import { postgresStore } from '../../src/stores/postgres/postgres-store.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';

const [kind, location, holder] = process.argv.slice(2);
if (!location || !holder || (kind !== 'sqlite' && kind !== 'postgres')) {
  process.stderr.write('usage: claim-racer.ts <sqlite|postgres> <location> <holder id>\n');
  process.exit(2);
}
const store =
  kind === 'sqlite'
    ? sqliteStore(location)
    : await postgresStore({
        connectionString: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test',
        schema: location,
      });
const leases = store.leases;
if (!leases) throw new Error(`the ${kind} store has no leases`);
const owner = { id: holder, pid: process.pid, pidStart: 'racer', host: 'racer-host' };
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);

for await (const line of createInterface({ input: process.stdin })) {
  const [startAt, dueBy] = line.split(' ').map(Number) as [number, number];
  while (Date.now() < startAt) {
    // Spin: a timer would wake each racer at a different moment.
  }
  const claims: Array<{ runId: string; epoch: number; previousEpoch: number | null }> = [];
  for (;;) {
    // A lease far longer than the test: nothing this race claims runs out again during it.
    const batch = await leases.claimDue(owner, { now: Date.now(), dueBy, ttlMs: 600_000, limit: 3 });
    if (!batch.length) break;
    for (const { run, previous } of batch)
      claims.push({ runId: run.runId, epoch: run.lease!.epoch, previousEpoch: previous?.epoch ?? null });
  }
  process.stdout.write(`${JSON.stringify({ claims })}\n`);
  break;
}
await store.close();
