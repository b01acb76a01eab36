/**
 * Finding, running and checking a config file, in-process: which file wins, a TypeScript config
 * with its own relative imports and paths, and every way a config can be wrong, each a typed error
 * naming the file and what to do. (test/package/ runs the same from the installed package.)
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import {
  ConfigLoadError,
  ConfigNotChosenError,
  ConfigNotFoundError,
  findConfig,
  InvalidConfigError,
  loadRegistry,
  registryOf,
} from '../../src/config/index.js';

// Inside node_modules: the configs import xstate as a user's would, resolved from there.
const cache = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url));
mkdirSync(cache, { recursive: true });
const root = mkdtempSync(join(cache, 'statewright-config-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let folders = 0;
/** A fresh folder holding `files`. */
function folder(files: Record<string, string>): string {
  const dir = join(root, String(folders++));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const machineModule = `import { createMachine } from 'xstate';
export const article = createMachine({ id: 'article', initial: 'draft', states: { draft: { on: { SUBMIT: 'done' } }, done: { type: 'final' } } });
export const here: string = import.meta.url;
`;
const config = (body: string) => `import { article, here } from './lib/article';\nexport default { ${body} };\n`;

describe('finding the config', () => {
  it('takes --config, then STATEWRIGHT_CONFIG, then statewright.config.{ts,mts,js,mjs} in the working folder', () => {
    const dir = folder({ 'statewright.config.mjs': '', 'statewright.config.ts': '', 'other.ts': '', 'env.ts': '' });
    expect(findConfig({ cwd: dir, env: {} })).toBe(join(dir, 'statewright.config.ts'));
    expect(findConfig({ cwd: dir, env: { STATEWRIGHT_CONFIG: 'env.ts' } })).toBe(join(dir, 'env.ts'));
    expect(findConfig({ cwd: dir, flag: 'other.ts', env: { STATEWRIGHT_CONFIG: 'env.ts' } })).toBe(
      join(dir, 'other.ts'),
    );
    expect(findConfig({ cwd: folder({ 'readme.md': '' }), env: {} })).toBeUndefined();
  });

  it('refuses a named file that is not there, saying who named it', () => {
    const dir = folder({});
    expect(() => findConfig({ cwd: dir, flag: 'gone.ts', env: {} })).toThrow(ConfigNotFoundError);
    expect(() => findConfig({ cwd: dir, env: { STATEWRIGHT_CONFIG: 'gone.ts' } })).toThrow(
      /named by STATEWRIGHT_CONFIG/,
    );
  });

  it('runs a config found in the working folder only where the user could have put it, and never for a command an agent starts', async () => {
    const ran = join(root, `ran-${folders}`);
    const planted = `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(ran)}, 'ran');\nexport default { machines: [] };\n`;
    const dir = folder({ 'statewright.config.ts': planted });
    const file = join(dir, 'statewright.config.ts');
    // A command an agent starts (statewright mcp): refused, naming the file and --config, and not run.
    await expect(loadRegistry({ cwd: dir, env: {}, discover: false })).rejects.toThrow(ConfigNotChosenError);
    expect(() => findConfig({ cwd: dir, env: {}, discover: false })).toThrow(
      `Not running the config ${file}: it was found in the working folder of a command an agent starts`,
    );
    expect(() => findConfig({ cwd: dir, env: {}, discover: false })).toThrow(`--config ${file}`);
    // Anyone may write it: refused, as git refuses a repository another user owns.
    chmodSync(file, 0o646);
    expect(() => findConfig({ cwd: dir, env: {} })).toThrow(/anyone on this machine may write it/);
    await expect(loadRegistry({ cwd: dir, env: {} })).rejects.toThrow(ConfigNotChosenError);
    expect(existsSync(ran)).toBe(false);
    // Named, it is the user's choice: it runs.
    expect(findConfig({ cwd: dir, flag: file, env: {}, discover: false })).toBe(file);
    chmodSync(file, 0o644);
    expect(findConfig({ cwd: dir, env: {} })).toBe(file);
    // Another user's file (root can make one): refused.
    if (process.getuid?.() === 0) {
      chownSync(file, 4242, 4242);
      expect(() => findConfig({ cwd: dir, env: {} })).toThrow(/owned by another user \(uid 4242\)/);
    }
  });

  it('without a config, the built-in lifecycles alone', async () => {
    const registry = await loadRegistry({ cwd: folder({}), env: {} });
    expect(registry.machines).toBe(lifecycles);
    expect(registry.file).toBeUndefined();
  });
});

describe('running the config', () => {
  it('compiles a TypeScript config with its relative imports, each file keeping its own import.meta.url', async () => {
    const dir = folder({
      'lib/article.ts': machineModule,
      'statewright.config.ts': `${config("machines: [{ name: 'article', machine: article, version: 2, summary: here }], store: 'sqlite:runs.db'")}`,
    });
    const registry = await loadRegistry({ cwd: dir, env: {} });
    expect(Object.keys(registry.machines)).toEqual([...Object.keys(lifecycles), 'article']);
    expect(registry.machines.article).toMatchObject({
      version: 2,
      summary: `file://${join(dir, 'lib', 'article.ts')}`,
    });
    expect(registry.store).toBe(`sqlite:${join(dir, 'runs.db')}`);
    expect(registry.fromConfig).toEqual(['article']);
    // The compiled copy beside it is gone.
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(dir).sort()).toEqual(['lib', 'statewright.config.ts']);
  });

  it('writes the compiled copy 0600 whatever the umask, and removes the copies a killed process left', async () => {
    // The config itself looks, while it runs, at the compiled copy it runs from.
    const seen = join(root, `seen-${folders}.json`);
    const dir = folder({
      'statewright.config.ts': `import { readdirSync, statSync, writeFileSync } from 'node:fs';
const copies = readdirSync(__dirname).filter((name) => name.endsWith('.mjs') && !name.includes('.0badc0de.') && !name.includes('.deadbeef.') && !name.includes('.12345678.'));
writeFileSync(${JSON.stringify(seen)}, JSON.stringify(copies.map((name) => [name, (statSync(__dirname + '/' + name).mode & 0o777).toString(8)])));
export default { machines: [] };
`,
    });
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    const stale = [`.statewright.config.ts.deadbeef.mjs`, `.statewright.config.ts.${gone}.0badc0de.mjs`];
    const live = `.statewright.config.ts.${process.pid}.12345678.mjs`;
    for (const name of [...stale, live]) writeFileSync(join(dir, name), '// a source map with a secret');
    const before = process.umask(0);
    try {
      await loadRegistry({ cwd: dir, env: {} });
    } finally {
      process.umask(before);
    }
    const copies = JSON.parse(readFileSync(seen, 'utf8')) as Array<[string, string]>;
    expect(copies).toEqual([
      [expect.stringMatching(new RegExp(`^\\.statewright\\.config\\.ts\\.${process.pid}\\.[0-9a-f]{8}\\.mjs$`)), '600'],
    ]);
    // The dead processes' copies are gone; a live process's (which may be running it now) stays.
    expect(readdirSync(dir).sort()).toEqual([live, 'statewright.config.ts']);
  });

  it("replaces a built-in of the same name, and hosts the config's alone with builtins: false", () => {
    const session = { name: 'session', machine: lifecycles.execution.machine, version: 9, summary: 'edited' };
    expect(registryOf({ machines: [session] }).machines.session).toBe(session);
    expect(Object.keys(registryOf({ machines: [session], builtins: false }).machines)).toEqual(['session']);
  });

  it('names the line of a config that does not compile, and the error of one that throws', async () => {
    const broken = folder({ 'statewright.config.ts': 'export default {\n  machines: [,\n' });
    await expect(loadRegistry({ cwd: broken, env: {} })).rejects.toThrow(ConfigLoadError);
    await expect(loadRegistry({ cwd: broken, env: {} })).rejects.toThrow(/statewright\.config\.ts:\d+: /);
    const throwing = folder({ 'statewright.config.mjs': "throw new Error('no database url');\n" });
    await expect(loadRegistry({ cwd: throwing, env: {} })).rejects.toThrow(/running it threw: no database url/);
  });
});

describe('checking the config', () => {
  const load = (body: string) =>
    loadRegistry({ cwd: folder({ 'lib/article.ts': machineModule, 'statewright.config.ts': config(body) }), env: {} });

  it('lists every problem by its path, and says what a config must export', async () => {
    const error = await load(
      "machines: [{ name: '1st', machine: {}, version: 0, summary: 'x' }], stores: 'sqlite:x'",
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidConfigError);
    const { message, problems } = error as InvalidConfigError;
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^machines\.0\.name: a name of letters/),
        expect.stringMatching(/^machines\.0\.machine: an XState machine/),
        expect.stringMatching(/^machines\.0\.version: /),
        expect.stringMatching(/stores/),
      ]),
    );
    expect(message).toMatch(/export default defineConfig\(\{ machines: \[defineLifecycle/);
  });

  it('refuses two machines of one name, and actors for a machine it does not define', async () => {
    const one = "{ name: 'article', machine: article, version: 1, summary: '' }";
    await expect(load(`machines: [${one}, ${one}]`)).rejects.toThrow(/two machines are named 'article'/);
    await expect(load(`machines: [${one}], actors: { articel: { ship: () => null } }`)).rejects.toThrow(
      /actors\.articel: no machine of the config is named 'articel'/,
    );
    await expect(
      loadRegistry({ cwd: folder({ 'statewright.config.mjs': 'export const x = 1;\n' }), env: {} }),
    ).rejects.toThrow(/no default export/);
  });

  it('refuses outcomes for a state that is not final, naming the final states', async () => {
    await expect(
      load("machines: [{ name: 'article', machine: article, version: 1, summary: '', outcomes: { draft: 'failed' } }]"),
    ).rejects.toThrow(
      /article\.outcomes\.draft: 'draft' is not a final state of its machine \(its final states: done\)/,
    );
    await expect(
      load("machines: [{ name: 'article', machine: article, version: 1, summary: '', outcomes: { done: 'lost' } }]"),
    ).rejects.toThrow(/machines\.0\.outcomes\.done: /);
  });
});
