/**
 * The process the crash test kills. It opens a store, lets the runtime restore what the last
 * process left, and drives execution runs with random valid events as fast as it can, writing a
 * journal line to stdout (a file: writes are synchronous, so a kill loses none that were made)
 * before each step and after each acknowledged one:
 *
 *   {"k":"start","runId"}           {"k":"started","runId"}
 *   {"k":"send","runId","key","type"}  {"k":"ack","runId","key","type","seq"}
 *   {"k":"send",...,"again":true}    (an unacknowledged send of a killed process, sent again)
 *
 * Each event's idempotency key is `<runId>:<seq it should get>`. On start, a send with no ack (the
 * last process was killed while it was in flight) is sent again with the same key: if the store
 * had committed it, the runtime returns the earlier result; if not, it is applied now. Either way
 * it must be in the history exactly once.
 *
 * Usage: node dist-test/test/stores/crash-child.js <json-file|sqlite|postgres> <location> <journal> <runs at once>
 * (for postgres the location is a schema; the server is DATABASE_URL or 127.0.0.1:5432/test)
 */
import { readFileSync, writeSync } from 'node:fs';
import { execution, lifecycles, type ExecutionState } from '../../machines/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { jsonFileStore } from '../../src/stores/json-file/json-file-store.js';
import { postgresStore } from '../../src/stores/postgres/postgres-store.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';

const [kind, location, journal, concurrency = '6'] = process.argv.slice(2);
if (!location || !journal || (kind !== 'json-file' && kind !== 'sqlite' && kind !== 'postgres')) {
  process.stderr.write('usage: crash-child.ts <json-file|sqlite|postgres> <location> <journal> [runs at once]\n');
  process.exit(2);
}

type Line =
  | { k: 'start' | 'started'; runId: string }
  | { k: 'send' | 'ack'; runId: string; key: string; type: string; seq?: number; again?: boolean };
const write = (line: Line) => writeSync(1, `${JSON.stringify(line)}\n`);
const fail = (error: unknown) => {
  process.stderr.write(
    `crash-child failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
};

/** What the earlier processes left in flight: sends without an ack, starts without a started. */
function unfinished(): { sends: Map<string, { runId: string; key: string; type: string }>; starts: Set<string> } {
  const sends = new Map<string, { runId: string; key: string; type: string }>();
  const starts = new Set<string>();
  let text = '';
  try {
    text = readFileSync(journal!, 'utf8');
  } catch {
    // First process: nothing was in flight.
  }
  for (const raw of text.split('\n')) {
    if (!raw) continue;
    const line = JSON.parse(raw) as Line;
    if (line.k === 'send') sends.set(line.key, line);
    else if (line.k === 'ack') sends.delete(line.key);
    else if (line.k === 'start') starts.add(line.runId);
    else starts.delete(line.runId);
  }
  return { sends, starts };
}

async function main(): Promise<void> {
  const left = unfinished();
  const store =
    kind === 'json-file'
      ? jsonFileStore(location!, { onCorruption: (r) => process.stderr.write(`report ${JSON.stringify(r)}\n`) })
      : kind === 'postgres'
        ? await postgresStore({
            connectionString: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test',
            schema: location!,
          })
        : sqliteStore(location!);
  process.stderr.write('recovering\n');
  const rt: Runtime = await createRuntime({ store, machines: lifecycles });
  rt.onError((e) => fail(e.error));

  for (const runId of left.starts) {
    if (!(await store.load(runId))) await rt.start('execution', { id: runId });
    write({ k: 'started', runId });
  }
  await Promise.all(
    [...left.sends.values()].map(async ({ runId, key, type }) => {
      write({ k: 'send', runId, key, type, again: true });
      const result = await rt.dispatch(runId, { type }, { idempotencyKey: key, actor: 'crash-child' });
      write({ k: 'ack', runId, key, type, seq: result.seq });
    }),
  );
  process.stderr.write('ready\n');

  const waiting = (await rt.list({ machine: 'execution', status: 'active' })).map((r) => r.runId);
  const nextRun = async (): Promise<string> => {
    const waitingRun = waiting.pop();
    if (waitingRun) return waitingRun;
    const runId = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
    write({ k: 'start', runId });
    await rt.start('execution', { id: runId });
    write({ k: 'started', runId });
    return runId;
  };
  // Each worker owns one run at a time, so it always knows the state its next event goes to.
  const worker = async () => {
    for (;;) {
      const runId = await nextRun();
      for (let run = await rt.getSnapshot(runId); run.status === 'active'; ) {
        const events = execution.validEvents(run.state as ExecutionState);
        const type = events[Math.floor(Math.random() * events.length)]!;
        const key = `${runId}:${run.seq + 1}`;
        write({ k: 'send', runId, key, type });
        run = await rt.dispatch(runId, { type }, { idempotencyKey: key, actor: 'crash-child' });
        write({ k: 'ack', runId, key, type, seq: run.seq });
      }
    }
  };
  await Promise.all(Array.from({ length: Number(concurrency) }, worker));
}

main().catch(fail);
