/**
 * A config reload hands the runs from the old definition to the new one as a graceful restart
 * would, within serve (issue 39): on a store without leases (json-file, here with no hand-over
 * file beside it, so the hand-over passes in memory), a run whose actor is running and whose
 * lifecycle fails runs of a dead host (`recover`) keeps going under the new version: its actor
 * stopped and started again as on a restart, its recovery rule not applied, and every event the
 * API acknowledged, before and during the reload, in its history.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadRegistry } from '../../src/config/index.js';
import type { ReloadOutcome } from '../../src/serve/config-reload.js';
import type { RunJson } from '../../src/serve/run-json.js';
import { startServe } from '../../src/serve/serve.js';
import { jsonFileStore } from '../../src/stores/json-file/json-file-store.js';

/** The worker lifecycle at `version`: an actor runs while it works; a run of a dead host is failed. */
const config = (version: number) => `
import { assign, fromCallback, setup } from 'xstate';

const worker = setup({ actors: { beat: fromCallback(() => {}) } }).createMachine({
  id: 'worker',
  initial: 'working',
  context: { notes: 0 },
  states: {
    working: {
      invoke: { src: 'beat' },
      on: { NOTE: { actions: assign({ notes: ({ context }) => context.notes + 1 }) }, CRASHED: 'crashed' },
    },
    crashed: { type: 'final' },
  },
});

const beats = ((globalThis as any).configReloadBeats ??= []);

export default {
  builtins: false,
  ${version > 1 ? "store: 'sqlite:elsewhere.db'," : ''}
  machines: [
    {
      name: 'worker',
      machine: worker,
      version: ${version},
      summary: 'a worker, version ${version}',
      recover: () => [{ type: 'CRASHED' }],
      migrations: { 1: (snapshot: unknown) => snapshot },
    },
  ],
  actors: {
    worker: {
      beat: () =>
        fromCallback(() => {
          beats.push('start v${version}');
          return () => beats.push('stop v${version}');
        }),
    },
  },
};
`;

const cache = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url));

describe('a config reload on a store without leases', () => {
  it('hands each run to the new definition as a graceful restart would, losing no acknowledged event', async () => {
    mkdirSync(cache, { recursive: true });
    const dir = realpathSync(mkdtempSync(join(cache, 'serve-config-hand-over-')));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'statewright.config.ts');
    writeFileSync(file, config(1));
    // What the config's actors record, read here (each version of the config takes it from globalThis).
    const beats: string[] = [];
    (globalThis as { configReloadBeats?: string[] }).configReloadBeats = beats;
    onTestFinished(() => {
      delete (globalThis as { configReloadBeats?: string[] }).configReloadBeats;
    });
    const registry = await loadRegistry({ flag: file });
    const store = jsonFileStore(join(dir, 'runs'));
    const outcomes: ReloadOutcome[] = [];
    const server = await startServe({
      store,
      home: dir,
      taskDir: dir,
      host: '127.0.0.1',
      port: 0,
      token: false,
      uiDir: dir,
      machines: registry.machines,
      actors: registry.actors,
      config: { ...registry, source: registry.source! },
      onConfigReload: (outcome) => outcomes.push(outcome),
    });
    onTestFinished(async () => {
      await server.close({ handOver: false });
      await store.close();
    });
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as { run: RunJson } }));
    expect((await post('/api/runs', { machine: 'worker', id: 'w1' })).status).toBe(201);
    expect(beats).toEqual(['start v1']);

    const note = () => post('/api/runs/w1/events', { event: { type: 'NOTE' } });
    // Events sent without a pause from before the reload begins until after it ends, by four
    // senders at once, so some are in flight as it begins and others arrive while the host changes.
    writeFileSync(file, config(2));
    let reloading = true;
    const reloaded = server.config!.reload().finally(() => (reloading = false));
    const sender = async () => {
      const answers = [await note()];
      while (reloading) answers.push(await note());
      return answers;
    };
    const answers = (await Promise.all([sender(), sender(), sender(), sender()])).flat();
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    // v2 names a store too: a running serve keeps the one it opened, and says so.
    expect(await reloaded).toMatchObject({
      kind: 'loaded',
      changes: [
        'worker v1 -> v2',
        `its store (sqlite:${join(dir, 'elsewhere.db')}) is not opened until serve is restarted`,
      ],
      restored: 1,
      setAside: [],
    });
    const sent = answers.length;

    // Not failed as a dead host's run: handed over. Its actor stopped with the old host and started with the new.
    const { run } = (await (await fetch(`${server.url}/api/runs/w1`)).json()) as { run: RunJson };
    expect(run).toMatchObject({ state: 'working', status: 'active', version: 2, seq: sent, context: { notes: sent } });
    expect(beats).toEqual(['start v1', 'stop v1', 'start v2']);
    const { events: history } = (await (await fetch(`${server.url}/api/runs/w1/history`)).json()) as {
      events: Array<{ event: { type: string } }>;
    };
    expect(history.map((entry) => entry.event.type)).toEqual(Array.from({ length: sent }, () => 'NOTE'));
    // Each acknowledged event's seq is one the history holds, each once.
    expect(new Set(answers.map((answer) => answer.body.run.seq)).size).toBe(sent);
    expect(outcomes.filter((outcome) => outcome.kind === 'loaded')).toHaveLength(1);
  });
});
