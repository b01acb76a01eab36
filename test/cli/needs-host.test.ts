/**
 * `statewright start` without a serve refuses a run that only a host can move: one whose machine
 * has `after` delays, invokes an actor from inline logic or spawns a child by `spawnChild`, as it
 * refuses one whose machine names actors. Such a run used to be started by the CLI, which exits at
 * once: the run sat in its first state for ever, its lease held by a dead process. The refusal says
 * what needs the host and to start `statewright serve`; nothing is stored. A machine moved only by
 * events starts as before.
 */
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';
import { configWith } from '../support/config-with.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
const cli = (cwd: string, ...args: string[]) => startCommand(process.execPath, [bin, ...args], { cwd, reject: false });

const lifecycle = (name: string, machine: string) =>
  `{ name: '${name}', version: 1, summary: '${name}', machine: ${machine} }`;

describe('statewright start without a host', () => {
  it('refuses runs that a delay, an inline invoke or a spawned child must move, and starts the others', async () => {
    const cwd = testDir('cli-needs-host');
    configWith(
      cwd,
      lifecycle(
        'order',
        `createMachine({ initial: 'open', states: { open: { after: { 2592000000: 'cancelled' }, on: { PAY: 'paid' } }, cancelled: { type: 'final' }, paid: { type: 'final' } } })`,
      ),
      lifecycle(
        'fetcher',
        `createMachine({ initial: 'loading', states: { loading: { invoke: { src: fromPromise(async () => 1), onDone: 'shown' } }, shown: {} } })`,
      ),
      lifecycle(
        'spawner',
        `createMachine({ initial: 'idle', states: { idle: { entry: spawnChild(createMachine({}), { id: 'helper' }), on: { GO: 'done' } }, done: {} } })`,
      ),
      lifecycle(
        'article',
        `createMachine({ initial: 'draft', states: { draft: { on: { PUBLISH: 'published' } }, published: {} } })`,
      ),
    );
    const order = await cli(cwd, 'start', 'order', '--id', 'o-1');
    expect([order.exitCode, order.stderr]).toEqual([
      1,
      "statewright: No statewright serve is running for this store, and order runs need one: their `after` delays (after 30 days in 'open') fire only in a host. Start one with `npx statewright serve` and run this again (or give --server <url>).",
    ]);
    const fetcher = await cli(cwd, 'start', 'fetcher', '--id', 'f-1');
    expect([fetcher.exitCode, fetcher.stderr]).toEqual([
      1,
      "statewright: No statewright serve is running for this store, and fetcher runs need one: the actors they invoke (in 'loading') run only in a host. Start one with `npx statewright serve` and run this again (or give --server <url>).",
    ]);
    const spawner = await cli(cwd, 'start', 'spawner', '--id', 's-1');
    expect(spawner.exitCode).toBe(1);
    expect(spawner.stderr).toContain('spawner runs need one: the children they spawn run only in a host.');
    expect((await cli(cwd, 'start', 'article', '--id', 'a-1')).stdout).toBe('a-1: draft');
    const status = (await cli(cwd, 'status')).stdout;
    expect(status).toMatch(/\na-1\s+article\s+draft\s/);
    expect(status).not.toMatch(/o-1|f-1|s-1/);
  });
});
