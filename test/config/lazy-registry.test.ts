/**
 * The registry a CLI command loads with the lifecycles it needs (config/lazy-registry.ts): only
 * the built-ins it names, the config's whole, and every built-in for a name none has (so that an
 * unknown machine's refusal lists them all), each the very object machines/index.ts exports.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { registryLoader } from '../../src/config/lazy-registry.js';

const dir = mkdtempSync(join(tmpdir(), 'statewright-lazy-registry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ALL = Object.keys(lifecycles);

describe('the registry with the lifecycles a command needs', () => {
  it('holds the built-ins named, every one for an unknown name or none given, nothing for []', async () => {
    const load = registryLoader({ cwd: dir, env: {} });
    const some = await load(['execution', 'session']);
    expect(Object.keys(some.machines).sort()).toEqual(['execution', 'session']);
    expect(some.machines.execution).toBe(lifecycles.execution);
    expect(some.machines.session).toBe(lifecycles.session);
    expect(Object.keys((await load([])).machines)).toEqual([]);
    expect(Object.keys((await load(['execution', 'no-such-machine'])).machines)).toEqual(ALL);
    expect(Object.keys((await load()).machines)).toEqual(ALL);
  });

  it("with a config: its lifecycles whole, its own in a built-in's place, none of the built-ins with builtins: false", async () => {
    const xstate = pathToFileURL(createRequire(import.meta.url).resolve('xstate')).href;
    const article = `{ name: 'article', version: 1, summary: 'a', machine: createMachine({ initial: 'draft', states: { draft: {} } }) }`;
    const execution = `{ name: 'execution', version: 2, summary: 'mine', machine: createMachine({ initial: 'a', states: { a: {} } }) }`;
    const write = (name: string, body: string) => {
      const file = join(dir, name);
      writeFileSync(file, `import { createMachine } from '${xstate}';\nexport default { ${body} };\n`);
      return file;
    };
    const withBuiltIns = registryLoader({
      flag: write('a.config.mjs', `machines: [${article}, ${execution}]`),
      env: {},
    });
    const read = await withBuiltIns(['execution', 'task']);
    expect(Object.keys(read.machines).sort()).toEqual(['article', 'execution', 'task']);
    expect(read.machines.execution!.version).toBe(2);
    expect(read.fromConfig).toEqual(['article', 'execution']);
    expect(read.file).toBe(join(dir, 'a.config.mjs'));
    const alone = registryLoader({ flag: write('b.config.mjs', `builtins: false, machines: [${article}]`), env: {} });
    expect(Object.keys((await alone(['task'])).machines)).toEqual(['article']);
  });
});
