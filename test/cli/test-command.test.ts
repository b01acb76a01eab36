/**
 * `statewright test` as a user runs it (the built bin, a process per call) on a config of their
 * own: a machine with parallel regions, a history state, a 30-day `after` and an invoked actor
 * passes; a `Date` in the context that a guard reads fails, shown on the shortest path to it.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startCommand } from '../support/child-processes.js';
import { testDir } from '../stores/temp-dir.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
const cli = (cwd: string, ...args: string[]) => startCommand(process.execPath, [bin, ...args], { cwd, reject: false });
const xstate = pathToFileURL(createRequire(import.meta.url).resolve('xstate')).href;

const CONFIG = `import { assign, fromPromise, setup } from '${xstate}';

const order = setup({ actors: { quote: fromPromise(async () => 10) } }).createMachine({
  id: 'order',
  initial: 'quoting',
  states: {
    quoting: { invoke: { src: 'quote', onDone: 'open', onError: 'failed' } },
    open: {
      type: 'parallel',
      on: { HOLD: 'held' },
      states: {
        payment: { initial: 'unpaid', states: { hist: { type: 'history', history: 'deep' }, unpaid: { on: { PAY: 'paid' } }, paid: {} } },
        shipping: { initial: 'waiting', states: { waiting: { on: { SHIP: 'shipped' } }, shipped: {} } },
      },
    },
    held: { on: { RESUME: 'open.payment.hist' }, after: { 2592000000: 'expired' } },
    expired: { type: 'final' },
    failed: { type: 'final' },
  },
});

const dated = setup({
  guards: { openedBefore: ({ context, event }) => context.openedAt.getTime() <= event.at },
}).createMachine({
  id: 'dated',
  context: { openedAt: null },
  initial: 'idle',
  states: {
    idle: { on: { OPEN: { target: 'open', actions: assign({ openedAt: ({ event }) => new Date(event.at) }) } } },
    open: { on: { CLOSE: { target: 'closed', guard: 'openedBefore' } } },
    closed: { type: 'final' },
  },
});

export default {
  builtins: false,
  machines: [
    { name: 'order', machine: order, version: 1, summary: 'an order' },
    { name: 'dated', machine: dated, version: 1, summary: 'a Date in the context' },
  ],
};
`;

/** A folder with the config, for this test only. */
function project(): string {
  const cwd = testDir('cli-test-command');
  writeFileSync(join(cwd, 'statewright.config.mjs'), CONFIG);
  return cwd;
}

describe('statewright test', { timeout: 120_000 }, () => {
  it('passes on a machine with parallel regions, history, a 30-day after and an actor, with a line per path and a summary table', async () => {
    const result = await cli(project(), 'test', 'order', '--stub-actors');
    expect([result.exitCode, result.stderr]).toEqual([0, '']);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^order: \d+ path\(s\)$/);
    expect(lines.filter((l) => l.startsWith('  ✓ ')).length).toBeGreaterThan(5);
    expect(result.stdout).toContain('xstate.after.2592000000.order.held');
    expect(result.stdout).toMatch(/^lifecycle +paths +steps +restores +failures +time$/m);
    expect(result.stdout).toMatch(/^order +\d+ +\d+ +\d+ +0 +\d+\.\d s$/m);
    expect(result.stdout).toContain('Every path passed.');
  });

  it('fails on a Date a guard reads after a restore, showing the shortest path, the step, what XState and statewright did', async () => {
    const cwd = project();
    const result = await cli(cwd, 'test', 'dated');
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain("dated p1: statewright refused 'CLOSE', which XState takes here");
    expect(result.stdout).toContain('  path:        start → OPEN → CLOSE');
    expect(result.stdout).toContain('  step:        2 (CLOSE)');
    expect(result.stdout).toMatch(/ {2}XState: +took \{"at":\d+,"type":"CLOSE"\}/);
    expect(result.stdout).toMatch(/ {2}statewright: refused it: .*getTime is not a function/);

    const json = await cli(cwd, 'test', 'dated', '--json');
    expect(json.exitCode).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report.ok).toBe(false);
    expect(report.lifecycles[0]).toMatchObject({ name: 'dated', ok: false, summary: { failures: 1 } });
    expect(report.lifecycles[0].paths.find((p: { ok: boolean }) => !p.ok)).toMatchObject({
      path: 'OPEN → CLOSE',
      failure: { step: 2, event: 'CLOSE', check: 'refusal' },
    });
    // Without the crashes the Date stays in memory, and the path passes.
    expect((await cli(cwd, 'test', 'dated', '--no-crash')).exitCode).toBe(0);
  });

  it('refuses a lifecycle the config does not have', async () => {
    const result = await cli(project(), 'test', 'nope');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("Unknown machine 'nope'");
  });

  it('--against-stored names the stored runs a renamed state breaks, and the migration they need', async () => {
    const cwd = testDir('cli-test-stored');
    const shop = (review: string) => `import { setup } from '${xstate}';
export default {
  builtins: false,
  machines: [{
    name: 'shop', version: 1, summary: 'a shop',
    machine: setup({}).createMachine({
      id: 'shop', initial: 'cart',
      states: { cart: { on: { CHECKOUT: '${review}' } }, ${review}: { on: { APPROVE: 'paid' } }, paid: { type: 'final' } },
    }),
  }],
};
`;
    writeFileSync(join(cwd, 'statewright.config.mjs'), shop('review'));
    for (const id of ['cart-1', 'review-1'])
      await cli(cwd, 'start', 'shop', '--id', id, '--store', 'sqlite:runs.db', '--create');
    await cli(cwd, 'send', 'review-1', 'CHECKOUT', '--store', 'sqlite:runs.db');
    const before = await cli(cwd, 'test', '--against-stored', '--store', 'sqlite:runs.db');
    expect([before.exitCode, before.stderr]).toEqual([0, '']);
    expect(before.stdout).toContain('Every stored run restores under the current definitions and goes on.');

    writeFileSync(join(cwd, 'statewright.config.mjs'), shop('checking'));
    const after = await cli(cwd, 'test', '--against-stored', '--store', 'sqlite:runs.db');
    expect(after.exitCode).toBe(1);
    expect(after.stdout).toMatch(/✗ review-1 \(version 1, in review\): breaks: .*'review'/);
    expect(after.stdout).toContain(
      'migration: none: the definition changed under version 1; register it as version 2 with migrations[1]',
    );
    expect(after.stdout).toContain('✓ cart-1 (version 1, in cart): restores; 1 path(s) on from it, 0 failed');
    expect(after.stdout).toContain('1 stored run(s) break under the current definitions: review-1');
  });
});
