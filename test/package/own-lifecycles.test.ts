/**
 * A user's own lifecycles from the installed package, with nothing opened in node_modules: a config
 * with a new machine (`article`) and an edited built-in (`session`, v2: a person reviews the work
 * once Claude completes it), hosted by `serve` from the installed bin, driven through the API and
 * every CLI command, checked, drawn; a store of v1 sessions migrated by it, or set aside with the
 * reason by a config that gives no migration.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endWithTest, startCommand } from '../support/child-processes.js';
import { installPackedPackage, type InstalledPackage } from '../support/packed-package.js';
import { withMigration, withoutMigration, writeUserConfig } from '../support/user-config.js';
import { api, startServeProcess, type ServeProcess } from '../support/serve-process.js';
import { until } from '../support/until.js';

let pkg: InstalledPackage;
beforeAll(async () => {
  pkg = await installPackedPackage();
}, 240_000);
afterAll(() => pkg?.remove());

const agent = (name: string) => join(pkg.packageDir, 'examples', 'agents', `${name}.sh`);
const runPath = (runId: string) => `/api/runs/${encodeURIComponent(runId)}`;

/** The installed bin in `cwd` (default the user's folder): its exit code and output. */
async function statewright(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const result = await startCommand(process.execPath, [pkg.bin, ...args], {
    cwd: options.cwd ?? pkg.dir,
    reject: false,
    env: options.env ?? {},
  });
  return { code: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

function reaches(server: ServeProcess, runId: string, state: string) {
  return until(
    `${runId} to reach ${state}`,
    async () => {
      const { body } = await api(server.url, 'GET', runPath(runId));
      return body.run?.state === state ? body.run : undefined;
    },
    60_000,
    50,
  );
}

async function agentPids(server: ServeProcess, runId: string): Promise<number[]> {
  const { body } = await api(server.url, 'GET', `${runPath(runId)}/history`);
  return body.events
    .filter((e: { event: { type: string } }) => e.event.type === 'agent.spawned')
    .map((e: { event: { pid: number } }) => e.event.pid);
}

describe('own lifecycles from the installed package', () => {
  it('init writes a starter config that passes check, and never overwrites one', async () => {
    const folder = join(pkg.dir, 'starter');
    mkdirSync(folder);
    const first = await statewright(['init'], { cwd: folder });
    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toContain('statewright serve');
    const written = readFileSync(join(folder, 'statewright.config.ts'), 'utf8');
    expect(await statewright(['check'], { cwd: folder })).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('7 machines pass 6 rules'),
    });
    // Beside it, a starter test of every path; and statewright test passes on the starter's machine.
    expect(readFileSync(join(folder, 'statewright.config.test.ts'), 'utf8')).toContain("from 'statewright/testing'");
    expect(await statewright(['test', 'article'], { cwd: folder })).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('Every path passed.'),
    });
    const again = await statewright(['init'], { cwd: folder });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/exists already/);
    expect(readFileSync(join(folder, 'statewright.config.ts'), 'utf8')).toBe(written);
  });

  it('a config with no default export, or a misnamed machine, is a clear error that changes nothing', async () => {
    const folder = join(pkg.dir, 'broken');
    mkdirSync(folder);
    writeFileSync(join(folder, 'statewright.config.ts'), 'export const machines = [];\n');
    const none = await statewright(['machines'], { cwd: folder });
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/no default export.*export default defineConfig/);
    writeFileSync(
      join(folder, 'statewright.config.ts'),
      "import { defineConfig } from 'statewright';\nexport default defineConfig({ machines: [{ name: 'bad name', machine: {} }] } as never);\n",
    );
    const bad = await statewright(['status'], { cwd: folder });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/machines\.0\.name.*letters/);
    expect(bad.stderr).toMatch(/machines\.0\.machine: an XState machine/);
    expect(existsSync(join(folder, 'statewright.db'))).toBe(false);
    const missing = await statewright(['machines', '--config', 'nowhere.config.ts'], { cwd: folder });
    expect(missing).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/No config file at .*nowhere\.config\.ts/),
    });
  });

  it("checks, lists, draws, starts, moves, explains, verifies and lists the user's runs with the CLI", async () => {
    writeUserConfig(pkg.dir, withMigration);
    const check = await statewright(['check']);
    expect(check).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/8 machines pass 6 rules: .*session.*deploy.*article/),
    });
    const machines = await statewright(['machines']);
    expect(machines.stdout).toMatch(/article v1: an article from draft through review to published/);
    expect(machines.stdout).toMatch(/session v2: /);

    const viz = await statewright(['viz', '--out', 'diagrams']);
    expect(viz.code).toBe(0);
    expect(readFileSync(join(pkg.dir, 'diagrams', 'article.mmd'), 'utf8')).toMatch(/review --> published/);
    expect(readFileSync(join(pkg.dir, 'diagrams', 'session.mmd'), 'utf8')).toMatch(/completed --> reviewed/);
    expect(readFileSync(join(pkg.dir, 'diagrams', 'article.svg'), 'utf8')).toMatch(/^<svg|<\?xml/);

    expect(await statewright(['start', 'article', '--id', 'post-1'])).toMatchObject({
      code: 0,
      stdout: 'post-1: draft',
    });
    expect((await statewright(['send', 'post-1', 'SUBMIT'])).stdout).toMatch(/^post-1: review/);
    // status's NOTE column says whom a run in a waitsFor state waits for.
    expect((await statewright(['status', '--machine', 'article'])).stdout).toMatch(
      /^post-1\s+article\s+review\s+active\s.*\swaits for an editor$/m,
    );
    const explained = await statewright(['explain', 'post-1']);
    expect(explained.stdout).toMatch(/verdict: waits for an editor/);
    expect(explained.stdout).toMatch(/approve: \{"type":"APPROVE"\}/);
    const refused = await statewright(['send', 'post-1', 'PUBLISH']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/PUBLISH/);
    expect(
      (await statewright(['send', 'post-1', '{"type":"APPROVE"}', '--actor', 'ed', '--reason', 'good'])).code,
    ).toBe(0);
    const history = await statewright(['history', 'post-1']);
    expect(history.stdout).toMatch(/SUBMIT/);
    expect(history.stdout).toMatch(/APPROVE.*ed|ed.*APPROVE/);
    expect((await statewright(['status', '--machine', 'article', '--json'])).stdout).toContain('"state": "published"');
    expect(await statewright(['verify', 'post-1'])).toMatchObject({ code: 0 });
    // The config's store, beside the config, is the one every command used.
    expect(existsSync(join(pkg.dir, 'runs.db'))).toBe(true);

    // Without the config the article runs are set aside, named by status, and can be ended with a reason.
    expect((await statewright(['start', 'article', '--id', 'post-3'])).code).toBe(0);
    const plain = join(pkg.dir, 'without-config');
    mkdirSync(plain, { recursive: true });
    const runsDb = `sqlite:${join(pkg.dir, 'runs.db')}`;
    const aside = await statewright(['status', '--json', '--store', runsDb], { cwd: plain });
    const post3 = JSON.parse(aside.stdout).runs.find((run: { runId: string }) => run.runId === 'post-3');
    expect(post3.setAside.reason).toMatch(/article/);
    const ended = await statewright(['end', 'post-3', '--reason', 'article retired', '--store', runsDb], {
      cwd: plain,
    });
    expect(ended).toMatchObject({ code: 0, stdout: expect.stringMatching(/^post-3: ended in draft/) });
    expect((await statewright(['history', 'post-3'])).stdout).toMatch(/article retired/);

    // A machine with actors runs only in a host: the CLI says so rather than starting what nothing would run.
    const hostless = await statewright(['start', 'deploy']);
    expect(hostless.code).not.toBe(0);
    expect(hostless.stderr).toMatch(/statewright serve/);

    const unknown = await statewright(['start', 'articel']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/Unknown machine 'articel'/);
    expect(unknown.stderr).toMatch(/statewright\.config\.ts/);
    expect(unknown.stderr).not.toMatch(/machines\/index\.ts|node_modules/);
  });

  it('serve hosts both: the API starts and moves them, draws them, and an edited session waits for its review', async () => {
    writeUserConfig(pkg.dir, withMigration);
    const server = await startServeProcess(
      pkg.dir,
      ['--store', `sqlite:${join(pkg.dir, 'serve.db')}`, '--create'],
      {},
      { bin: pkg.bin },
    );
    try {
      expect(server.stdout()).toMatch(
        /^lifecycles: .*article.* \(deploy, article, session from .*statewright\.config\.ts\)$/m,
      );
      const { body: listed } = await api(server.url, 'GET', '/api/machines');
      const names = listed.machines.map((m: { name: string; version: number }) => `${m.name} v${m.version}`);
      expect(names).toEqual(expect.arrayContaining(['article v1', 'session v2', 'execution v1']));
      const article = listed.machines.find((m: { name: string }) => m.name === 'article');
      expect(article).toMatchObject({ initial: 'draft', terminalStates: ['published'] });
      expect(article.events.sort()).toEqual(['APPROVE', 'REJECT', 'SUBMIT']);

      const svg = await fetch(`${server.url}/api/machines/article/diagram.svg`, {
        headers: { authorization: `Bearer ${server.token}` },
      });
      expect(svg.status).toBe(200);
      expect(await svg.text()).toMatch(/published/);
      const sessionSvg = await fetch(`${server.url}/api/machines/session/diagram.svg`, {
        headers: { authorization: `Bearer ${server.token}` },
      });
      expect(await sessionSvg.text()).toMatch(/reviewed/);

      // The config's own actor, from a module beside it, runs in serve once its step is committed.
      expect((await api(server.url, 'POST', '/api/runs', { machine: 'deploy', id: 'd-1' })).status).toBe(201);
      await api(server.url, 'POST', `${runPath('d-1')}/events`, { event: { type: 'SHIP' } });
      await reaches(server, 'd-1', 'shipped');
      expect(readFileSync(join(pkg.dir, 'shipped', 'd-1'), 'utf8')).toBe('shipped\n');

      expect((await api(server.url, 'POST', '/api/runs', { machine: 'article', id: 'post-2' })).status).toBe(201);
      const moved = await api(server.url, 'POST', `${runPath('post-2')}/events`, { event: { type: 'SUBMIT' } });
      expect(moved.body.run.state).toBe('review');

      const started = await api(server.url, 'POST', '/api/runs', {
        machine: 'session',
        id: 's-new',
        input: { query: 'write the notes', config: { command: [agent('succeed')], working_dir: pkg.dir } },
      });
      expect(started.status).toBe(201);
      for (const pid of await agentPids(server, 's-new')) endWithTest(pid);
      await reaches(server, 's-new', 'completed');
      const { body: why } = await api(server.url, 'GET', `${runPath('s-new')}/explain`);
      expect(why).toMatchObject({ verdict: 'waits for a person to review the work' });
      // The CLI finds the running serve (its server file) and sends through it.
      const reviewed = await statewright([
        'send',
        's-new',
        'REVIEWED',
        '--store',
        `sqlite:${join(pkg.dir, 'serve.db')}`,
      ]);
      expect(reviewed).toMatchObject({ code: 0, stdout: expect.stringMatching(/^s-new: reviewed \(done/) });
    } finally {
      await server.stop();
    }
  });

  it('a store of v1 sessions: migrated by the edited lifecycle, or set aside with the reason without a migration', async () => {
    const store = `sqlite:${join(pkg.dir, 'sessions-v1.db')}`;
    const plain = join(pkg.dir, 'no-config');
    mkdirSync(plain, { recursive: true });
    const release = join(pkg.dir, 'release-s-old');
    // The built-in lifecycles alone: a v1 session, its agent working, handed over at SIGTERM.
    const before = await startServeProcess(plain, ['--store', store, '--create'], {}, { bin: pkg.bin });
    try {
      await api(before.url, 'POST', '/api/runs', {
        machine: 'session',
        id: 's-old',
        input: {
          query: 'work until released',
          config: { command: [agent('until-file')], env: { STANDIN_RELEASE_FILE: release }, working_dir: pkg.dir },
        },
      });
      await reaches(before, 's-old', 'running');
      for (const pid of await agentPids(before, 's-old')) endWithTest(pid);
      expect((await api(before.url, 'GET', runPath('s-old'))).body.run).toMatchObject({ version: 1 });
    } finally {
      await before.stop();
    }

    // Without a migration: the run is set aside, once, with the reason, and check --store names it.
    writeUserConfig(pkg.dir, withoutMigration, 'no-migration.config.ts');
    const stranded = await statewright(['check', '--store', store, '--config', 'no-migration.config.ts']);
    expect(stranded.code).toBe(1);
    expect(stranded.stdout).toMatch(/session: stranded run 's-old' in 'running' \(v1\): .*migration/);
    const status = await statewright(['status', '--json', '--store', store], {
      env: { STATEWRIGHT_CONFIG: join(pkg.dir, 'no-migration.config.ts') },
    });
    expect(JSON.parse(status.stdout).runs[0]).toMatchObject({
      runId: 's-old',
      setAside: { reason: expect.stringMatching(/migration/) },
    });

    // A serve that cannot host it sets it aside once and leaves it alone, however many lease periods pass.
    const blind = await startServeProcess(
      pkg.dir,
      ['--store', store, '--config', 'no-migration.config.ts', '--lease-ttl', '500', '--hibernate-after', 'off'],
      {},
      { bin: pkg.bin },
    );
    try {
      const first = (await api(blind.url, 'GET', runPath('s-old'))).body.run;
      expect(first.setAside.reason).toMatch(/migration/);
      await api(blind.url, 'POST', '/api/runs', { machine: 'article', id: 'held' });
      // The renewals of a run this serve holds prove the lease periods passed.
      const renewals = new Set<number>();
      await until('six renewals of a held run', async () => {
        renewals.add((await api(blind.url, 'GET', runPath('held'))).body.run.lease.renewedAt);
        return renewals.size > 6;
      });
      const later = (await api(blind.url, 'GET', runPath('s-old'))).body.run;
      expect(later.lease.epoch).toBe(first.lease.epoch);
      expect(later.seq).toBe(first.seq);
    } finally {
      await blind.stop();
    }

    // With it: serve adopts the run, migrates it to v2, the agent finishes, and the review decides.
    writeUserConfig(pkg.dir, withMigration);
    const after = await startServeProcess(pkg.dir, ['--store', store], {}, { bin: pkg.bin });
    try {
      writeFileSync(release, '');
      const completed = await reaches(after, 's-old', 'completed');
      expect(completed).toMatchObject({ version: 2, status: 'active' });
      const done = await api(after.url, 'POST', `${runPath('s-old')}/events`, { event: { type: 'REVIEWED' } });
      expect(done.body.run).toMatchObject({ state: 'reviewed', status: 'done' });
    } finally {
      await after.stop();
    }
    expect(await statewright(['verify', '--store', store])).toMatchObject({ code: 0 });
  });
});
