/**
 * A run object's history in pages (src/restate/history-pages.ts), against one node: what `history`
 * and `explain` return is every entry once and in order, whatever keys hold them; a step writes the
 * page being filled, a page that fills moves to a key of its own, and a large entry stays on its
 * own key; a run stored before pages (one key per entry, as older endpoints wrote every run) reads
 * the same and keeps its history whole as it takes new steps; a client that names no `limit` (one
 * from before pages) is answered as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { AdminClient, sqlString } from '../../src/restate/admin-client.js';
import { unpackPage } from '../../src/restate/history-entries.js';
import { ENTRIES_PER_PAGE } from '../../src/restate/history-pages.js';
import { IngressClient } from '../../src/restate/ingress-client.js';
import type { HistoryAnswer } from '../../src/restate/run-object.js';
import type { EventRecord } from '../../src/stores/store.js';
import { until } from '../support/until.js';
import { startRestateHost, type RestateHost } from './restate-host.js';

let host: RestateHost;
let admin: AdminClient;
const OBJECT = 'statewright-execution';

beforeAll(async () => {
  host = await startRestateHost({ machines: { execution: lifecycles.execution } });
  admin = new AdminClient(host.node.admin);
}, 120_000);

afterAll(async () => {
  await host?.stop();
});

/** A running run with `events` entries in its history, the events cycling running -> recovering -> running. */
async function runWith(runId: string, events: number, reasonAt?: { seq: number; reason: string }): Promise<void> {
  const { runtime } = host;
  await runtime.start('execution', { id: runId });
  for (let seq = 1; seq <= events; seq++) {
    const type = seq === 1 ? 'ENQUEUE' : seq % 2 === 0 ? 'START' : 'RECOVER';
    await runtime.dispatch(runId, { type }, reasonAt?.seq === seq ? { reason: reasonAt.reason } : {});
  }
}

/** The state keys the run object holds for `runId`, sorted. */
async function stateKeys(runId: string): Promise<string[]> {
  const rows = await admin.query<{ key: string }>(
    `SELECT key FROM state WHERE service_name = ${sqlString(OBJECT)} AND service_key = ${sqlString(runId)}`,
  );
  return rows.map((row) => row.key).sort();
}

const entryKeys = (keys: readonly string[]) => keys.filter((key) => /^(h:|p:|tail$)/.test(key));

function expectWhole(history: readonly EventRecord[], seqs: number): void {
  expect(history.map((entry) => entry.seq)).toEqual(Array.from({ length: seqs }, (_, n) => n + 1));
  for (const entry of history) {
    expect(entry.before).toBe(
      entry.seq === 1 ? 'pending' : entry.seq === 2 ? 'queued' : entry.seq % 2 ? 'running' : 'recovering',
    );
    expect(entry.after).toBe(entry.seq === 1 ? 'queued' : entry.seq % 2 ? 'recovering' : 'running');
  }
}

describe('a history in pages', () => {
  it('keeps full pages, the page being filled and a large entry apart, and reads them back whole and in order', async () => {
    const reason = 'x'.repeat(9_000);
    await runWith('paged-1', 2 * ENTRIES_PER_PAGE + 30, { seq: 120, reason });
    expect(entryKeys(await stateKeys('paged-1'))).toEqual(['h:120', 'p:0', 'p:1', 'tail']);
    const history = await host.runtime.history('paged-1');
    expectWhole(history, 230);
    expect(history[119]!.reason).toBe(reason);
    // Pages and the answer leave the run id out; the client puts it back where the step had it, first.
    expect(history.every((entry) => Object.keys(entry)[0] === 'runId' && entry.runId === 'paged-1')).toBe(true);
    const explanation = await host.runtime.explain('paged-1');
    expect(explanation).toMatchObject({ runId: 'paged-1', state: 'running' });
  });

  it('answers a page at a time: as many as the limit asks and whether more follow, or as before to a client that names none', async () => {
    await runWith('paged-2', 150);
    const ingress = new IngressClient(host.node.ingress, { token: host.node.token });
    const ask = (request: unknown) => ingress.call<HistoryAnswer>(OBJECT, 'paged-2', 'history', request);
    const items = (answer: HistoryAnswer) => ('ok' in answer ? answer.ok : []);
    const entries = (answer: HistoryAnswer) =>
      items(answer).flatMap((item) => (typeof item === 'string' ? unpackPage(item) : [item]));
    const seqs = (from: number, count: number) => Array.from({ length: count }, (_, n) => n + from);
    // Page 0 whole, packed into one string, then 101..120 one by one, none with its run id.
    const first = await ask({ after: 0, limit: 120 });
    expect(first).toMatchObject({ more: true });
    expect(items(first)).toHaveLength(21);
    expect(typeof items(first)[0]).toBe('string');
    expect(entries(first).map((e) => e.seq)).toEqual(seqs(1, 120));
    expect(entries(first).some((e) => 'runId' in e)).toBe(false);
    const rest = await ask({ after: 120, limit: 120 });
    expect(rest).toMatchObject({ more: false });
    expect(entries(rest).map((e) => e.seq)).toEqual(seqs(121, 30));
    // No limit: entries whole, with their run id, at most HISTORY_PAGE, and no `more`.
    const old = await ask({ after: 99 });
    expect(old).not.toHaveProperty('more');
    expect(items(old).every((item) => typeof item === 'object' && item.runId === 'paged-2')).toBe(true);
    expect(entries(old).map((e) => e.seq)).toEqual(seqs(100, 51));
  });
});

describe('a run stored before pages', () => {
  it('reads a history kept one key per entry, and keeps it whole as the run takes new steps', async () => {
    // 150 entries written now, then the run's state put back as an older endpoint kept it: `run` and `h:<seq>`.
    await runWith('legacy-1', 150);
    const before = await host.runtime.history('legacy-1');
    const [row] = await admin.query<{ value_utf8: string }>(
      `SELECT value_utf8 FROM state WHERE service_name = ${sqlString(OBJECT)} AND service_key = 'legacy-1' AND key = 'run'`,
    );
    const bytes = (text: string) => [...Buffer.from(text, 'utf8')];
    const oldState: Record<string, number[]> = { run: bytes(row!.value_utf8) };
    for (const entry of before) oldState[`h:${entry.seq}`] = bytes(JSON.stringify(entry));
    const response = await fetch(`${host.node.admin}/services/${OBJECT}/state`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ object_key: 'legacy-1', new_state: oldState }),
    });
    expect(response.ok).toBe(true);
    await until('the old layout in place', async () =>
      (await stateKeys('legacy-1')).every((key) => !/^(p:|tail$)/.test(key)),
    );
    expect(entryKeys(await stateKeys('legacy-1'))).toHaveLength(150);

    expect(await host.runtime.history('legacy-1')).toEqual(before);
    expect(await host.runtime.explain('legacy-1')).toMatchObject({ runId: 'legacy-1', state: 'running' });

    // 60 steps more: page 1 closes holding only 151..200 (101..150 stay on their own keys), 201..210 in the tail.
    for (let seq = 151; seq <= 210; seq++)
      await host.runtime.dispatch('legacy-1', { type: seq % 2 === 0 ? 'START' : 'RECOVER' });
    const keys = entryKeys(await stateKeys('legacy-1'));
    expect(keys.filter((key) => key.startsWith('h:'))).toHaveLength(150);
    expect(keys.filter((key) => !key.startsWith('h:'))).toEqual(['p:1', 'tail']);
    const after = await host.runtime.history('legacy-1');
    expectWhole(after, 210);
    expect(after.slice(0, 150)).toEqual(before);
  });
});
