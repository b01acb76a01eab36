/**
 * `statewright status`, `explain` and `history` through a running serve of the store (found from
 * its file beside it) print what they print reading the store themselves: the same table, NOTE
 * column (a lifecycle's `statusNote`, a `waitsFor` state), set-aside runs, "more runs" line,
 * explanation and trail, text and --json. And they ask serve rather than read the store: the CLI
 * process loads neither the SQLite driver nor XState (the probe lists the packages it required).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';
import { configWith } from '../support/config-with.js';
import { startServeProcess } from '../support/serve-process.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;

const ARTICLE = `createMachine({ id: 'article', initial: 'draft', states: { draft: { on: { PUBLISH: 'published' } }, published: { on: { ARCHIVE: 'archived' } }, archived: { type: 'final' } } })`;

/** Heartbeat ages move between two reads: the rest of the output must not. */
const steady = (text: string) =>
  text.replace(/"heartbeatAgeMs":\s*\d+/g, '"heartbeatAgeMs": 0').replace(/\d+(\.\d+)? (ms|s|min) ago/g, 'a while ago');

describe('status, explain and history through a running serve', () => {
  it('print what they print reading the store, and load no store driver nor XState', async () => {
    const cwd = testDir('reads-through-serve');
    const path = join(cwd, 'state.db');
    configWith(
      cwd,
      `{ name: 'article', version: 1, summary: 'an article', machine: ${ARTICLE}, waitsFor: { draft: 'an editor to PUBLISH it' } }`,
      `{ name: 'flag', version: 1, summary: 'a flag', machine: createMachine({ initial: 'up', states: { up: { on: { LOWER: 'down' } }, down: {} } }), statusNote: (run) => run.state === 'up' ? 'flying since ' + run.runId : undefined }`,
    );
    // Writes at exit which packages the process required: the store's driver, XState.
    const probe = join(cwd, 'probe.cjs');
    const probed = join(cwd, 'probed.txt');
    writeFileSync(
      probe,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(probed)}, Object.keys(require.cache).filter((k) => /node_modules[\\\\/](better-sqlite3|xstate)[\\\\/]/.test(k)).join('\\n')));\n`,
    );
    // `server`: where the CLI looks for a serve (empty: the file beside the store); one that does not answer, and it reads the store itself.
    const cli = async (args: string[], server = '') => {
      const { stdout, stderr, exitCode } = await startCommand(process.execPath, ['-r', probe, bin, ...args], {
        cwd,
        reject: false,
        env: { STATEWRIGHT_STORE: `sqlite:${path}`, STATEWRIGHT_SERVER: server, STATEWRIGHT_TOKEN: '', COLUMNS: '200' },
      });
      return { out: steady(`${exitCode}\n${stdout}\n${stderr}`), loaded: readFileSync(probed, 'utf8') };
    };

    for (let i = 1; i <= 4; i++) expect((await cli(['start', 'article', '--id', `a-${i}`])).out).toMatch(/^0\n/);
    expect((await cli(['start', 'flag', '--id', 'f-1'])).out).toMatch(/^0\n/);
    await cli([
      'send',
      'a-2',
      '{"type":"PUBLISH","words":120}',
      '--actor',
      'alice',
      '--reason',
      'ready',
      '--key',
      'k-1',
    ]);
    await cli(['send', 'a-3', '{"type":"PUBLISH"}']);
    await cli(['send', 'a-3', '{"type":"ARCHIVE"}']);
    // A run stored by a newer article than the config's: set aside by both readers.
    const store = sqliteStore(path);
    const newer = await createRuntime({
      store,
      recover: false,
      machines: {
        article: {
          name: 'article',
          version: 9,
          summary: 'v9',
          machine: createMachine({ initial: 'draft', states: { draft: {} } }),
        },
      },
    });
    await newer.start('article', { id: 'a-9' });
    await newer.close();
    await store.close();

    const commands: string[][] = [
      ['status'],
      ['status', '--json'],
      ['status', '--limit', '2'],
      ['status', '--all', '--machine', 'article'],
      ['status', '--status', 'done', '--json'],
      ['explain', 'a-1'],
      ['explain', 'a-2', '--json'],
      ['explain', 'a-1', '--verbose'],
      ['explain', 'a-9'],
      ['history', 'a-2'],
      ['history', 'a-3', '--json'],
      ['history', 'a-2', '--json'],
      ['explain', 'nothing-here'],
    ];
    const serve = await startServeProcess(cwd, ['--store', `sqlite:${path}`]);
    try {
      for (const command of commands) {
        const named = command.join(' ');
        // As before: the store read here, beside the serve (a serve that does not answer falls back to it).
        const alone = await cli(command, 'http://127.0.0.1:9');
        expect(alone.loaded, named).toMatch(/better-sqlite3/);
        const through = await cli(command);
        expect(through.out, named).toBe(alone.out);
        // An unknown run is refused by serve, then read here to say so as before.
        if (!command.includes('nothing-here')) expect(through.loaded, named).toBe('');
        if (named === 'status') {
          expect(through.out).toMatch(/\sNOTE\n/);
          expect(through.out).toMatch(/waits for an editor to PUBLISH it/);
          expect(through.out).toMatch(/flying since f-1/);
          expect(through.out).toMatch(/1 set aside: /);
        }
        if (named === 'history a-2') expect(through.out).toMatch(/by alice \(ready\)/);
      }
    } finally {
      await serve.stop();
    }
  });
});
