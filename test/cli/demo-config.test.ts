/**
 * `statewright demo` hosts the lifecycles of the user's config beside the built-in ones it drives,
 * as serve does (its help offers --config, as every command's does): they are listed by the API,
 * started in the same view, and named in what the demo prints.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signalGroup } from '../../src/os/process-identity.js';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';
import { configWith } from '../support/config-with.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;

describe('the demo with a config', () => {
  it("hosts the config's lifecycles beside the built-in ones it drives", { timeout: 120_000 }, async () => {
    const cwd = testDir('demo-config');
    configWith(
      cwd,
      `{ name: 'article', version: 1, summary: 'an article', machine: createMachine({ id: 'article', initial: 'draft', states: { draft: { on: { PUBLISH: 'published' } }, published: { type: 'final' } } }) }`,
    );
    const demo = startCommand(
      process.execPath,
      [bin, 'demo', '--store', `sqlite:${join(cwd, 'state.db')}`, '--create', '--port', '0', '--pace', '50'],
      { cwd, reject: false },
    );
    try {
      const printed = await new Promise<string>((resolve, reject) => {
        let out = '';
        demo.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (/^Yours, from .*$/m.test(out)) resolve(out);
        });
        void demo.then((result) => reject(new Error(`the demo exited: ${result.stderr}\n${out}`)));
      });
      expect(printed).toMatch(
        /^Yours, from .*statewright\.config\.mjs: article \(start one in the view, or: .* start <machine> --store sqlite:/m,
      );
      const [, url, token] = printed.match(/The live view: (http:\/\/\S+?)\/#token=(\S+)\n/)!;
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const machines = (await (await fetch(`${url}/api/machines`, { headers })).json()) as {
        machines: Array<{ name: string }>;
      };
      expect(machines.machines.map((m) => m.name)).toEqual(expect.arrayContaining(['article', 'execution', 'session']));
      const started = await fetch(`${url}/api/runs`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ machine: 'article', id: 'post-1' }),
      });
      expect(started.status).toBe(201);
    } finally {
      if (demo.pid) signalGroup(demo.pid, 'SIGINT');
      await demo;
    }
  });
});
