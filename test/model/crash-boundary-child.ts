/**
 * The process crash-boundary-kill.test.ts kills at a commit boundary. It drives one run of a
 * lifecycle through the runtime to the commit it is told to die at, on a real store, with
 * stand-in actors that append each side effect to a file (synchronously: a kill loses none that
 * were made). At that commit it either never writes (before-durable) or writes it and never
 * answers (after-durable), reports on stderr which commit it caught, and waits to be killed.
 *
 * Usage: node dist-test/test/model/crash-boundary-child.js <json-file|sqlite|postgres> <location> <plan.json> <effects.jsonl>
 * where plan.json is { name, runId, input, rounds, commit, death } (see commit-boundaries.ts).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { lifecycles } from '../../machines/index.js';
import { createRuntime, ManualClock } from '../../src/runtime/index.js';
import { jsonFileStore, postgresStore, sqliteStore, type Store } from '../../src/stores/index.js';
import { dyingStore, type Death } from '../../src/testing/dying-store.js';
import { EffectLedger } from '../support/recording-actors.js';
import type { Round } from './commit-boundaries.js';
import { commitRound, playRefused, playRound } from './crash-boundary.js';

const [kind, location, planFile, effectsFile] = process.argv.slice(2);
if (!location || !planFile || !effectsFile || (kind !== 'json-file' && kind !== 'sqlite' && kind !== 'postgres')) {
  process.stderr.write(
    'usage: crash-boundary-child.ts <json-file|sqlite|postgres> <location> <plan.json> <effects.jsonl>\n',
  );
  process.exit(2);
}
const plan = JSON.parse(readFileSync(planFile, 'utf8')) as {
  name: string;
  runId: string;
  input: unknown;
  rounds: Round[];
  commit: number;
  death: Death;
  host: string;
};

const open = async (): Promise<Store> =>
  kind === 'sqlite'
    ? sqliteStore(location, { synchronous: 'NORMAL' })
    : kind === 'json-file'
      ? jsonFileStore(location)
      : postgresStore({
          connectionString: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test',
          schema: location,
        });

try {
  const dying = dyingStore(await open(), plan.death);
  const ledger = new EffectLedger(lifecycles, (effect) => appendFileSync(effectsFile, `${JSON.stringify(effect)}\n`));
  const runtime = await createRuntime({
    store: dying.store,
    machines: lifecycles,
    clock: new ManualClock(),
    actors: ledger.actorsFor(plan.host),
    recover: false,
  });
  for (let round = 0; round < plan.commit; round++) await playRound(runtime, plan.runId, plan.name, plan, round);
  await playRefused(runtime, plan.runId, plan.rounds[plan.commit]!.refused);
  dying.die();
  commitRound(runtime, plan.runId, plan.name, plan, plan.commit).catch(() => {});
  await dying.deathReached;
  process.stderr.write(`caught ${JSON.stringify([...dying.caught])}\n`);
  // Waits to be killed.
  setInterval(() => {}, 60_000);
} catch (error) {
  process.stderr.write(
    `crash-boundary-child failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
}
