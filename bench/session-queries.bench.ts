/**
 * The session queries on SQLite with 5,000 sessions (4,900 finished, 100 active, 20 of them
 * waiting for approval): read from the index keys (`runtime.listByIndex`), beside the scan that
 * loads every session's snapshot and filters and sorts in JS. Also what keeping the keys costs a
 * commit: session events through the runtime with and without the lifecycle's `indexes`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lifecycles } from '../machines/index.js';
import { createRuntime, ManualClock, type Runtime } from '../src/runtime/index.js';
import {
  activeSessions,
  asSessionRun,
  listActiveSessions,
  listSessionsAwaitingInput,
  sessionsAwaitingInput,
} from '../src/session/queries.js';
import { sqliteStore } from '../src/stores/index.js';
import { measureAsync, printTable } from './measure.js';

const T0 = Date.UTC(2026, 0, 1);
const dir = mkdtempSync(join(tmpdir(), 'statewright-bench-sessions-'));
const input = (i: number) => ({ query: `task ${i}`, created_at: T0 + i, log_path: join(dir, `s${i}.jsonl`) });

async function populate(runtime: Runtime, count: number) {
  const batch = 250;
  for (let from = 0; from < count; from += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, count - from) }, async (_, k) => {
        const i = from + k;
        const id = `s${i}`;
        await runtime.start('session', { id, input: input(i) });
        await runtime.dispatch(id, { type: 'agent.session', sessionId: `c${i}`, at: T0 + i + 1 });
        if (i % 50 === 0) {
          if (i % 250 === 0)
            await runtime.dispatch(id, {
              type: 'APPROVAL_REQUESTED',
              approval_id: `a${i}`,
              tool_name: 'Bash',
              tool_input: {},
              at: T0 + i + 2,
            });
          return;
        }
        await runtime.dispatch(id, { type: 'INTERRUPT', at: T0 + i + 3 });
      }),
    );
  }
}

const store = sqliteStore(join(dir, 'state.db'), { synchronous: 'NORMAL' });
const runtime = await createRuntime({ store, machines: lifecycles, clock: new ManualClock(T0 + 10_000_000) });
await populate(runtime, 5_000);

const scanActive = async () => activeSessions((await runtime.list({ machine: 'session' })).map(asSessionRun));
const scanAwaiting = async () => sessionsAwaitingInput((await runtime.list({ machine: 'session' })).map(asSessionRun));
if (JSON.stringify(await listActiveSessions(runtime)) !== JSON.stringify(await scanActive()))
  throw new Error('index and scan disagree on active sessions');
if (JSON.stringify(await listSessionsAwaitingInput(runtime)) !== JSON.stringify(await scanAwaiting()))
  throw new Error('index and scan disagree on sessions awaiting input');

const QUERIES = 20;
const scan = await measureAsync('scan every session (load, filter, sort)', QUERIES, async () => {
  for (let i = 0; i < QUERIES; i++) await scanActive();
});
const indexed = await measureAsync('index walk (run_keys)', QUERIES, async () => {
  for (let i = 0; i < QUERIES; i++) await listActiveSessions(runtime);
});
const awaiting = await measureAsync('sessions awaiting input, index walk', QUERIES, async () => {
  for (let i = 0; i < QUERIES; i++) await listSessionsAwaitingInput(runtime);
});
printTable('Active sessions of 5,000 on SQLite (100 active)', scan, [scan, indexed, awaiting]);

// The cost of keeping the keys: the same session steps with and without the lifecycle's indexes.
const { indexes: _declared, ...unindexed } = lifecycles.session;
const STEPS = 600;
async function steps(machines: typeof lifecycles | Record<string, unknown>, name: string) {
  const s = sqliteStore(join(dir, `${name}.db`), { synchronous: 'NORMAL' });
  const rt = await createRuntime({ store: s, machines: machines as typeof lifecycles, clock: new ManualClock(T0) });
  let n = 0;
  const result = await measureAsync(name, STEPS, async () => {
    await Promise.all(
      Array.from({ length: STEPS / 3 }, async () => {
        const id = `r${n++}`;
        await rt.start('session', { id, input: input(n) });
        await rt.dispatch(id, { type: 'agent.session', sessionId: 'c', at: T0 + 1 });
        await rt.dispatch(id, { type: 'INTERRUPT', at: T0 + 2 });
      }),
    );
  });
  await rt.close();
  await s.close();
  return result;
}
const without = await steps({ ...lifecycles, session: unindexed }, 'session steps, no index keys');
const withKeys = await steps(lifecycles, 'session steps, keeping 3 index keys');
printTable('Session commits on SQLite (synchronous NORMAL, group commit)', without, [without, withKeys]);

await runtime.close();
await store.close();
rmSync(dir, { recursive: true, force: true });
