/**
 * serve and an edited config (issue 39): serve started with a user's statewright.config.ts, its
 * lifecycle in a file the config imports, and the files edited under it. A new version with a
 * migration is loaded and the next send moves the run under it; a config that does not compile, or
 * that edits a lifecycle without a version bump stranding a live run, is refused (serve keeps the
 * old one, says why on stderr and in GET /api/host, and the CLI refuses to send through it) until a
 * fix is saved; a new version that cannot take a live run sets it aside with its reason, which the
 * CLI's status gives too. Every wait is on serve's output (the reload's own line, naming the hash
 * of the files it loaded) or an answer; the processes end with the test.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { configHash } from '../../src/config/index.js';
import { startCommand } from '../support/child-processes.js';
import { api, startServeProcess, type ServeProcess } from '../support/serve-process.js';

const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));

/** lib/article.ts: the article lifecycle at a version, its `review` state's way on, and its migrations. */
const articleModule = (version: number, options: { approveTo: string; migrations?: string; states?: string }) => `
import { createMachine } from 'xstate';

export const article = {
  name: 'article',
  version: ${version},
  summary: 'an article, version ${version}',
  ${options.migrations ? `migrations: ${options.migrations},` : ''}
  machine: createMachine({
    id: 'article',
    initial: 'draft',
    context: { migratedFrom: null },
    states: {
      draft: { on: { SUBMIT: 'review' } },
      review: { on: { APPROVE: '${options.approveTo}' } },
      ${options.states ?? ''}
      published: { type: 'final' },
    },
  }),
};
`;

const V1 = articleModule(1, { approveTo: 'published' });
/** v2: an approved article is scheduled before it is published; a v1 run is migrated, marked so. */
const V2 = articleModule(2, {
  approveTo: 'scheduled',
  states: "scheduled: { on: { PUBLISH: 'published' } },",
  migrations: '{ 1: (snapshot: any) => ({ ...snapshot, context: { ...snapshot.context, migratedFrom: 1 } }) }',
});
const CONFIG = `import { article } from './lib/article';\nexport default { store: 'sqlite:runs.db', machines: [article] };\n`;

// Inside node_modules: the config imports xstate as a user's would, resolved from there.
const cache = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url));

/** A user's folder with the config and its lifecycle at `lifecycle`, and serve started in it. */
async function served(lifecycle: string) {
  mkdirSync(cache, { recursive: true });
  // Real paths: serve names its config by the working folder, which the kernel gives resolved.
  const dir = realpathSync(mkdtempSync(join(cache, 'serve-config-')));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'lib'));
  const config = join(dir, 'statewright.config.ts');
  const lib = join(dir, 'lib', 'article.ts');
  writeFileSync(lib, lifecycle);
  writeFileSync(config, CONFIG);
  const serve = await startServeProcess(dir, []);
  const cli = (...args: string[]) => startCommand(process.execPath, [bin, ...args], { cwd: dir, reject: false });
  /** Writes the files and returns the hash serve will name once it has read them. */
  const edit = (files: { lib?: string; config?: string }) => {
    if (files.lib !== undefined) writeFileSync(lib, files.lib);
    if (files.config !== undefined) writeFileSync(config, files.config);
    return configHash(config, [config, lib]);
  };
  return { dir, config, serve, cli, edit, hash: configHash(config, [config, lib]) };
}

/** `article` a1 submitted (in review) through serve, as the CLI does it. */
async function submitted(cli: (...args: string[]) => Promise<{ exitCode?: number; stdout: string }>) {
  expect((await cli('start', 'article', '--id', 'a1')).stdout).toMatch(/^a1: draft \(on http:/);
  expect((await cli('send', 'a1', '{"type":"SUBMIT"}')).stdout).toMatch(/^a1: review \(active, 1 events, on http:/);
}

const hostConfig = async (serve: ServeProcess) => (await api(serve.url, 'GET', '/api/host')).body.config;

describe('serve and an edited config', () => {
  it('loads a new version with a migration: the next send moves the run under it, and the CLI agrees', async () => {
    const { serve, cli, edit, hash, config } = await served(V1);
    expect(serve.stdout()).toContain(`config ${config} (hash ${hash}): watched`);
    await submitted(cli);
    expect(await hostConfig(serve)).toMatchObject({ file: config, hash, lifecycles: { article: 1 }, error: null });

    // Only the imported file changes: serve watches what the config imports too.
    const next = edit({ lib: V2 });
    await serve.printed(
      new RegExp(
        `^config reloaded from ${config} \\(hash ${hash} -> ${next}\\): article v1 -> v2; \\d+ runs restored$`,
        'm',
      ),
    );
    expect(await hostConfig(serve)).toMatchObject({ hash: next, lifecycles: { article: 2 }, reloads: 1, error: null });

    const sent = await cli('send', 'a1', '{"type":"APPROVE"}');
    // v1 would have published it; v2 schedules it. The CLI reads the config serve runs: no note.
    expect([sent.exitCode, sent.stdout, sent.stderr]).toEqual([
      0,
      expect.stringMatching(/^a1: scheduled \(active, 2 events, on http:/),
      '',
    ]);
    const { body } = await api(serve.url, 'GET', '/api/runs/a1');
    expect(body.run).toMatchObject({ version: 2, state: 'scheduled', context: { migratedFrom: 1 } });
    const status = await cli('status', '--json');
    expect(JSON.parse(status.stdout).runs).toEqual([expect.not.objectContaining({ setAside: expect.anything() })]);
    expect((await api(serve.url, 'GET', '/api/machines')).body.machines).toContainEqual(
      expect.objectContaining({ name: 'article', version: 2, states: expect.arrayContaining(['scheduled']) }),
    );
  });

  it('keeps the config it runs when the new one does not compile or strands a run, says why, and loads the fix', async () => {
    const { serve, cli, edit, hash, config } = await served(V1);
    await submitted(cli);

    const broken = edit({ config: `${CONFIG}export const oops = ;\n` });
    const line = await serve.logged(/^serve: error: config not reloaded: .*$/m);
    expect(line[0]).toMatch(
      new RegExp(
        `Cannot load the config ${config}: statewright\\.config\\.ts:3: Unexpected ";"\\. serve keeps running the config it loaded at \\S+ \\(hash ${hash}\\); fix ${config} and serve loads it when it is saved$`,
      ),
    );
    expect(await hostConfig(serve)).toMatchObject({
      hash,
      lifecycles: { article: 1 },
      reloads: 0,
      error: { message: expect.stringMatching(/^Cannot load the config .*Unexpected ";"/), hash: broken },
    });
    // The CLI cannot read it either (it finds its store there)...
    const unreadable = await cli('send', 'a1', '{"type":"APPROVE"}');
    expect([unreadable.exitCode, unreadable.stderr]).toEqual([
      1,
      expect.stringMatching(/^statewright: Cannot load the config .*statewright\.config\.ts:3: Unexpected ";"/),
    ]);
    // ...and, told the store, sends nothing through a serve that would answer under a config the file no longer says.
    const refused = await cli('send', 'a1', '{"type":"APPROVE"}', '--store', 'sqlite:runs.db');
    expect([refused.exitCode, refused.stderr]).toEqual([
      1,
      expect.stringMatching(
        new RegExp(
          `^statewright: The statewright serve at ${serve.url} runs ${config} as it was at \\S+ \\(hash ${hash}\\), not as it is now: it could not load the change \\(Cannot load the config .*\\)\\. Nothing was sent\\.`,
        ),
      ),
    ]);
    expect((await api(serve.url, 'GET', '/api/runs/a1')).body.run).toMatchObject({ state: 'review', seq: 1 });

    // The same version with the state a1 rests in gone: a restart would strand a1 for a change that says nothing of it.
    const unversioned = edit({
      config: CONFIG,
      lib: articleModule(1, { approveTo: 'published' })
        .replace("SUBMIT: 'review'", "SUBMIT: 'published'")
        .replace(/review: \{[^\n]*\n/, '\n'),
    });
    await serve.logged(
      new RegExp(
        `config not reloaded: The config ${config} changes article but keeps its version 1, and 1 live run\\(s\\) of it cannot be restored under the new definition \\(run 'a1' in 'review': .*\\)\\. Give it version: 2 with migrations: \\{ 1: \\(snapshot\\) => \\.\\.\\. \\}`,
      ),
    );
    expect((await hostConfig(serve)).error).toMatchObject({
      message: expect.stringContaining('changes article but keeps its version 1'),
      hash: unversioned,
    });
    // The CLI reads the store under the file as it is now, where a1 cannot be restored: it says serve runs another.
    const status = await cli('status');
    expect(status.stdout).toMatch(
      /\n1 set aside: .*\n.*\na1\s+article\s+review\s+v1\s+XState cannot restore its stored snapshot/s,
    );
    expect(status.stderr).toMatch(
      new RegExp(
        `^statewright: note: the serve at ${serve.url} runs ${config} as it was at \\S+ \\(hash ${hash}\\): it could not load the change \\(The config .* changes article but keeps its version 1.*\\); this command reads the file as it is now, which serve does not run\\.$`,
      ),
    );

    const fixed = edit({ lib: V2 });
    await serve.printed(
      new RegExp(`^config reloaded from ${config} \\(hash ${hash} -> ${fixed}\\): article v1 -> v2;`, 'm'),
    );
    expect(await hostConfig(serve)).toMatchObject({ hash: fixed, reloads: 1, error: null });
    const sent = await cli('send', 'a1', '{"type":"APPROVE"}');
    expect([sent.exitCode, sent.stdout, sent.stderr]).toEqual([0, expect.stringMatching(/^a1: scheduled /), '']);
  });

  it('sets aside a live run its new version cannot take, with its reason, as the CLI does', async () => {
    const { serve, cli, edit, hash, config } = await served(V1);
    await submitted(cli);
    // v2 with no migration from v1: a restart would set a1 aside.
    const next = edit({ lib: V2.replace(/migrations: .*\n/, '\n') });
    const line = await serve.printed(
      new RegExp(
        `^config reloaded from ${config} \\(hash ${hash} -> ${next}\\): article v1 -> v2; \\d+ runs restored, 1 set aside \\(a1: (.*)\\)$`,
        'm',
      ),
    );
    const reason = line[1]!;
    expect(reason).toMatch(/^Run 'a1' was stored by article v1, but this runtime has article v2/);

    const listed = await api(serve.url, 'GET', '/api/runs?setAside=true');
    expect(listed.body.runs).toEqual([expect.objectContaining({ runId: 'a1', setAside: { reason } })]);
    // The CLI, reading the same config, says the same of it, and send through serve is refused with it.
    const status = await cli('status', '--json');
    expect(JSON.parse(status.stdout).runs).toEqual([expect.objectContaining({ runId: 'a1', setAside: { reason } })]);
    const refused = await cli('send', 'a1', '{"type":"APPROVE"}');
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      `statewright: Run 'a1' is set aside: ${reason.replace(/\.$/, '')}. It takes no events`,
    );
    // A new run starts under v2.
    expect((await cli('start', 'article', '--id', 'a2')).stdout).toMatch(/^a2: draft \(on http:/);
    expect((await api(serve.url, 'GET', '/api/runs/a2')).body.run).toMatchObject({ version: 2 });
  });
});
