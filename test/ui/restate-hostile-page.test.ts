/**
 * A hostile web page in a real browser (Chromium from @sparticuz/chromium, driven by playwright-core)
 * against a Restate server from npm with `statewright worker` (the built CLI) registered on it. The
 * Restate ingress answers a CORS preflight from any origin, credentials allowed, so the page's JSON
 * POSTs reach the run objects and it can read their answers: it tries to start a session whose
 * command touches a file (through the run directory, and the session's object directly) and to read
 * a run's snapshot and history. Each is refused by the handler before it reads or writes anything,
 * and the page reads only the refusal; so are its GETs (the ingress runs handlers on a GET, which a
 * link or an image sends with no Origin). A run the user starts after the refusals came back runs its
 * command in the worker (with no token in its environment): the page's never did. The same with a worker started `--no-token` on
 * loopback: the Origin check stays. Needs `npm run build` (the bin).
 */
import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { readPidRecord } from '../../src/actors/pid-record.js';
import { signalGroup } from '../../src/os/process-identity.js';
import { restateRuntime, RestateOriginError, type RestateRuntime } from '../../src/restate/index.js';
import { UnknownRunError } from '../../src/runtime/errors.js';
import { freePort, startRestateNode, type RestateNode } from '../restate/restate-node.js';
import { startWorkerProcess, type WorkerProcess } from '../restate/worker-process.js';
import { testDir } from '../stores/temp-dir.js';
import { launchBrowser } from '../support/browser.js';
import { until } from '../support/until.js';

let node: RestateNode;
beforeAll(async () => {
  node = await startRestateNode();
}, 120_000);
afterAll(() => node?.stop());

/** Serves an empty page at `/` on a port of its own: another origin than the ingress's. */
async function pageServer(): Promise<string> {
  const server: Server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>a page</title>'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** A session's input whose agent command touches `file`. */
const touching = (file: string) => ({ query: 'anything', config: { command: ['sh', '-c', `touch '${file}'`] } });

/** Ends the agent a session started in the worker (its own process group), however the test ends. */
function endAgentWithTest(home: string, runId: string): void {
  onTestFinished(() => {
    const recorded = readPidRecord(join(home, 'sessions', `${runId}.jsonl.pid`));
    if (recorded) signalGroup(recorded.pid, 'SIGKILL');
  });
}

it('a page of another origin starts nothing and reads nothing through the ingress, with a token or --no-token', {
  timeout: 240_000,
}, async () => {
  const dir = testDir('restate-hostile-page');
  const home = join(dir, 'home');
  const port = await freePort();
  const clients: RestateRuntime[] = [];
  const workers: WorkerProcess[] = [];
  onTestFinished(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(workers.map((worker) => worker.kill()));
  });
  const worker = async (token?: false) => {
    const started = await startWorkerProcess({
      admin: node.admin,
      ingress: [node.ingress],
      port,
      home,
      cwd: dir,
      ...(token === false && { token }),
    });
    workers.push(started);
    return started;
  };
  const client = (token: string | undefined) => {
    const made = restateRuntime({ ingress: node.ingress, admin: node.admin, ...(token && { token }) });
    clients.push(made);
    return made;
  };

  const browser = await launchBrowser(join(dir, 'chromium-profile'));
  const page = await browser.newPage();
  const origin = await pageServer();
  await page.goto(origin);
  /** The statuses of the page's GETs, which only the browser sees. */
  const gets: Array<[string, number]> = [];
  page.on('response', (response) => {
    if (response.request().method() === 'GET' && response.url().startsWith(node.ingress))
      gets.push([new URL(response.url()).pathname, response.status()]);
  });

  /** The attack, as the page's own script: JSON POSTs to the ingress, each answer read. */
  const attack = (round: string, marker: string) =>
    page.evaluate(
      async ([ingress, round, input]) => {
        const post = async (path: string, body: unknown) => {
          const response = await fetch(ingress + path, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          return { path, status: response.status, body: await response.text() };
        };
        // GETs, as a link or an image sends them (no Origin, no preflight; the answer opaque to the page).
        await fetch(`${ingress}/statewright-runs/${round}-c/start`, { mode: 'no-cors' });
        await fetch(`${ingress}/statewright-execution/kept/snapshot`, { mode: 'no-cors' });
        return Promise.all([
          post(`/statewright-runs/${round}-a/start`, { machine: 'session', input }),
          post(`/statewright-session/${round}-b/start`, { input }),
          post('/statewright-execution/kept/snapshot', null),
          post('/statewright-execution/kept/history', { after: 0 }),
          post('/statewright-runs/kept/machine', null),
        ]);
      },
      [node.ingress, round, touching(marker)] as const,
    );

  const rounds = [
    { name: 'token', token: node.token },
    { name: 'notoken', token: undefined },
  ] as const;
  for (const round of rounds) {
    const running = await worker(round.token === undefined ? false : undefined);
    const user = client(round.token);
    if (round.name === 'token') {
      await user.start('execution', { id: 'kept', input: { secret: 'kept-secret' } });
      await user.dispatch('kept', { type: 'ENQUEUE' }, { reason: 'kept-reason' });
    }
    const marker = join(dir, `pwned-${round.name}`);
    const answers = await attack(round.name, marker);
    const refusal = JSON.stringify({ code: 403, message: RestateOriginError.forOrigin(origin) });
    // The page reads every answer (the ingress's CORS lets it): the handler's refusal, or the
    // ingress's own for the session's object, which only the run directory may call.
    expect(answers.map(({ path, status }) => [path, status])).toEqual([
      [`/statewright-runs/${round.name}-a/start`, 403],
      [`/statewright-session/${round.name}-b/start`, 400],
      ['/statewright-execution/kept/snapshot', 403],
      ['/statewright-execution/kept/history', 403],
      ['/statewright-runs/kept/machine', 403],
    ]);
    for (const answer of answers) {
      if (answer.status === 403) expect(JSON.parse(answer.body)).toMatchObject(JSON.parse(refusal));
      else expect(answer.body).toMatch(/not public/);
      expect(answer.body).not.toMatch(/kept-secret|kept-reason|ENQUEUE|execution"/);
    }
    expect(gets.splice(0)).toEqual([
      [`/statewright-runs/${round.name}-c/start`, 403],
      ['/statewright-execution/kept/snapshot', 403],
    ]);
    for (const id of [`${round.name}-a`, `${round.name}-b`, `${round.name}-c`])
      await expect(user.getSnapshot(id)).rejects.toBeInstanceOf(UnknownRunError);

    // The user's own session, started after the page's answers came back, runs its command in the
    // worker: the page's would have run by now too, had it started.
    const proof = join(dir, `ran-${round.name}`);
    endAgentWithTest(home, `user-${round.name}`);
    // Its command writes its environment there: the worker's token is not in it.
    const command = ['sh', '-c', `env > '${proof}.tmp' && mv '${proof}.tmp' '${proof}'`];
    await user.start('session', { id: `user-${round.name}`, input: { query: 'anything', config: { command } } });
    await until(`the user's session to run its command (${round.name})`, () => existsSync(proof), 60_000);
    expect(readFileSync(proof, 'utf8')).toMatch(/^PATH=/m);
    expect(readFileSync(proof, 'utf8')).not.toContain(node.token);
    expect(existsSync(marker)).toBe(false);
    expect((await user.list()).map((run) => run.runId).sort()).toEqual(
      ['kept', 'user-token', ...(round.name === 'notoken' ? ['user-notoken'] : [])].sort(),
    );
    if (round.token === undefined) expect(running.stderr()).toContain('warning: no token (--no-token)');
    expect(await running.stop('SIGTERM')).toBe(0);
  }
});
