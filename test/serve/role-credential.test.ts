/**
 * A task role's credential (src/serve/scoped-credential.ts, role-scope.ts) on a real serve hosting a
 * ferrus task project's store: got with the user's token (`statewright task credential`, `POST
 * /api/credentials`), it sends its own agent's events of its role to that task run and reads it, and
 * every other attempt (a supervisor's event, another agent's name, the checker's results, another
 * run, starting a run, giving out credentials, every run's steps) is refused with a typed error and
 * changes nothing; a forged or altered credential is no credential. `statewright mcp --task` given it
 * works through serve: the machine still judges each event, and the tools that must run here refuse.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';
import { api, startServeProcess } from '../support/serve-process.js';
import { until } from '../support/until.js';
import { connectStatewrightMcp, textOf } from '../mcp/mcp-client.js';

const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));
const EXECUTOR = 'executor:codex:1';
const SUPERVISOR = 'supervisor:claude:1';
/** Neither the test runner's server nor its token: what the commands find is the project's. */
const CLEAN_ENV = { STATEWRIGHT_TOKEN: '', STATEWRIGHT_SERVER: '', STATEWRIGHT_STORE: '' };

it("a task role's credential acts as its agent on its task run only; mcp --task goes through serve with it", async () => {
  const dir = testDir('role-credential');
  writeFileSync(
    join(dir, 'ferrus.toml'),
    `[limits]\nwait_timeout_secs = 30\n\n[checks]\ncommands = ["test -f done.txt || { echo 'done.txt is missing'; exit 1; }"]\n`,
  );
  const cli = async (args: string[], env: Record<string, string> = {}) => {
    const done = await startCommand(process.execPath, [bin, ...args], {
      cwd: dir,
      reject: false,
      env: { ...CLEAN_ENV, ...env },
    });
    return { code: done.exitCode, stdout: String(done.stdout), stderr: String(done.stderr) };
  };
  // The supervisor creates the task on the store, as ferrus does; then serve hosts the project.
  const created = await cli(['task', 'create', 'Write done.txt', '--as', SUPERVISOR, '--dir', dir]);
  expect(created.code, created.stderr).toBe(0);
  const store = `sqlite:${join(dir, '.statewright', 'state.db')}`;
  const serve = await startServeProcess(dir, ['--store', store], {
    ...CLEAN_ENV,
    STATEWRIGHT_TOKEN: 'a-user-token-of-this-test-0123456789',
  });
  const other = await api(serve.url, 'POST', '/api/runs', {
    machine: 'task',
    id: 'other-task',
    input: { limits: { maxCheckRetries: 3, maxReviewCycles: 3 }, lease: { ttlMs: 600_000 } },
  });
  expect(other.status, JSON.stringify(other.body)).toBe(201);

  // A person gets the executor's credential with the user's token (the CLI finds it in the server file).
  const printed = await cli(['task', 'credential', '--as', EXECUTOR, '--dir', dir]);
  expect(printed.code, printed.stderr).toBe(0);
  const credential = printed.stdout.trim();
  expect(credential).toMatch(/^sw-role\.[^.]+\.[^.]+\.[^.]+$/);
  const asExecutor = { authorization: `Bearer ${credential}` };
  const send = (run: string, event: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    api(serve.url, 'POST', `/api/runs/${run}/events`, { event, ...extra }, asExecutor);

  // Its own events work, and the audit trail names the credential, whatever actor the request says.
  const claimed = await send('task', { type: 'claim', agent: EXECUTOR }, { actor: 'the-supervisor' });
  expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
  expect((await send('task', { type: 'heartbeat', agent: EXECUTOR })).status).toBe(200);
  const read = await api(serve.url, 'GET', '/api/runs/task', undefined, asExecutor);
  expect(read.status).toBe(200);
  expect(read.body.run.context.lease.claimedBy).toBe(EXECUTOR);
  const history = await api(serve.url, 'GET', '/api/runs/task/history', undefined, asExecutor);
  expect(history.body.events.at(-2)).toMatchObject({
    event: { type: 'claim', agent: EXECUTOR },
    actor: 'the-supervisor',
    credential: `role:${EXECUTOR}@task`,
  });
  const before = read.body.run.seq as number;
  const otherBefore = (await api(serve.url, 'GET', '/api/runs/other-task')).body.run.seq as number;

  const refusal = async (answer: Promise<{ status: number; body: any }>) => {
    const { status, body } = await answer;
    return { status, error: body?.error, kind: body?.kind };
  };
  const forbidden = { status: 403, error: 'CredentialScopeError', kind: 'forbidden' };
  const attempts = {
    // The supervisor's events, in its own name or the supervisor's: 403 before the machine sees them.
    approveAsItself: await refusal(send('task', { type: 'approve', agent: EXECUTOR })),
    approveAsSupervisor: await refusal(send('task', { type: 'approve', agent: SUPERVISOR })),
    rejectAsSupervisor: await refusal(send('task', { type: 'reject', agent: SUPERVISOR, notes: 'no' })),
    anotherExecutor: await refusal(send('task', { type: 'heartbeat', agent: 'executor:codex:2' })),
    noAgent: await refusal(send('task', { type: 'heartbeat' })),
    checkerResult: await refusal(send('task', { type: 'check_passed', agent: 'checker:statewright:1' })),
    leaseExpired: await refusal(send('task', { type: 'lease_expired', holder: SUPERVISOR, leaseUntil: 0 })),
    takeAKey: await refusal(send('task', { type: 'heartbeat', agent: EXECUTOR }, { idempotencyKey: 'approve-1' })),
    otherRun: await refusal(send('other-task', { type: 'claim', agent: EXECUTOR })),
    readOther: await refusal(api(serve.url, 'GET', '/api/runs/other-task', undefined, asExecutor)),
    start: await refusal(
      api(serve.url, 'POST', '/api/runs', { machine: 'task', id: 'started-by-agent', input: {} }, asExecutor),
    ),
    listRuns: await refusal(api(serve.url, 'GET', '/api/runs', undefined, asExecutor)),
    endRun: await refusal(api(serve.url, 'POST', '/api/runs/task/end', { reason: 'x' }, asExecutor)),
    everyStep: await refusal(api(serve.url, 'GET', '/api/steps', undefined, asExecutor)),
    giveOutCredential: await refusal(
      api(serve.url, 'POST', '/api/credentials', { run: 'task', agent: SUPERVISOR }, asExecutor),
    ),
  };
  expect(attempts).toEqual(Object.fromEntries(Object.keys(attempts).map((name) => [name, forbidden])));
  const approve = await send('task', { type: 'approve', agent: SUPERVISOR });
  expect(approve.body.message).toMatch(/^Refused the event "approve" in the name of "supervisor:claude:1".*role:/);

  // A credential serve did not give out is none: refused as a wrong token (401), whatever part is changed.
  const [prefix, run, agent, mac] = credential.split('.') as [string, string, string, string];
  const encode = (text: string) => Buffer.from(text).toString('base64url');
  const flipped = `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
  const forged = {
    mac: [prefix, run, agent, flipped],
    otherRun: [prefix, encode('other-task'), agent, mac],
    otherAgent: [prefix, run, encode(SUPERVISOR), mac],
    noMac: [prefix, run, agent],
  };
  for (const [name, parts] of Object.entries(forged)) {
    const answer = await api(
      serve.url,
      'POST',
      '/api/runs/task/events',
      { event: { type: 'heartbeat', agent: SUPERVISOR } },
      { authorization: `Bearer ${parts.join('.')}` },
    );
    expect([name, answer.status, answer.body.error]).toEqual([name, 401, 'UnauthorizedError']);
  }

  // Nothing changed: the task and the other run are where they were, nothing started.
  expect((await api(serve.url, 'GET', '/api/runs/task')).body.run.seq).toBe(before);
  expect((await api(serve.url, 'GET', '/api/runs/other-task')).body.run.seq).toBe(otherBefore);
  expect((await api(serve.url, 'GET', '/api/runs/started-by-agent')).status).toBe(404);

  // Only the user's token gives one out, for a task run; the view's credential gives none.
  const view = await api(serve.url, 'POST', '/api/view-session', {});
  expect(
    await refusal(
      api(
        serve.url,
        'POST',
        '/api/credentials',
        { run: 'task', agent: SUPERVISOR },
        { authorization: `View ${view.body.credential}` },
      ),
    ),
  ).toEqual(forbidden);
  expect((await api(serve.url, 'POST', '/api/credentials', { run: 'task', agent: 'checker:x:1' })).status).toBe(422);
  expect((await api(serve.url, 'POST', '/api/credentials', { run: 'nothing', agent: EXECUTOR })).status).toBe(404);

  // `statewright mcp --task` with the credentials: through serve, as each agent, never on the store.
  const supervisorCredential = await api(serve.url, 'POST', '/api/credentials', { run: 'task', agent: SUPERVISOR });
  expect(supervisorCredential).toMatchObject({ status: 201, body: { holder: `role:${SUPERVISOR}@task` } });
  const mcpAs = async (as: string, token: string) =>
    (await connectStatewrightMcp(['--task', dir, '--as', as], { ...CLEAN_ENV, STATEWRIGHT_TOKEN: token })).client;
  const [executor, supervisor] = await Promise.all([
    mcpAs(EXECUTOR, credential),
    mcpAs(SUPERVISOR, supervisorCredential.body.credential),
  ]);
  const call = async (client: typeof executor, name: string, args: Record<string, unknown> = {}) => {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
    return { text: textOf(result), isError: result.isError === true };
  };
  const lastStep = async () => (await api(serve.url, 'GET', '/api/runs/task/history')).body.events.at(-1);
  expect(await call(executor, 'heartbeat')).toEqual({
    isError: false,
    text: expect.stringMatching(/^task is Executing\ntask: Write done.txt\nclaimed by executor:codex:1 until /),
  });
  expect(await lastStep()).toMatchObject({
    event: { type: 'heartbeat', agent: EXECUTOR },
    credential: `role:${EXECUTOR}@task`,
  });
  // The machine still judges: a submission before the checks passed is refused by it.
  expect(await call(executor, 'submit', { summary: 'done' })).toEqual({
    isError: true,
    text: expect.stringMatching(/^InvalidTransitionError: .*submit/),
  });
  // A consultation waits, heartbeating through serve, for the supervisor's response through serve.
  const consulting = call(executor, 'consult', { question: 'Which file?' });
  await until('the question to be asked', async () => {
    const { body } = await api(serve.url, 'GET', '/api/runs/task');
    return body.run.state === 'Active.Consultation.Asked';
  });
  expect((await call(supervisor, 'answer', { answer: 'done.txt' })).isError).toBe(false);
  expect(await consulting).toEqual({
    isError: false,
    text: expect.stringMatching(/^response: done.txt\ntask is Executing/),
  });
  // serve runs the checks of its project (its --task-dir), and the tool waits for their result.
  expect(await call(executor, 'check')).toEqual({
    isError: false,
    text: expect.stringMatching(/^The checks did not pass\.\n(.|\n)*done.txt is missing/),
  });
  writeFileSync(join(dir, 'done.txt'), 'done\n');
  expect((await call(executor, 'check')).text).toMatch(/^The checks passed\./);
  expect((await call(executor, 'submit', { summary: 'wrote done.txt' })).isError).toBe(false);
  expect(await call(supervisor, 'approve')).toEqual({
    isError: false,
    text: expect.stringMatching(/^task is Complete/),
  });
  expect(await lastStep()).toMatchObject({
    event: { type: 'approve', agent: SUPERVISOR },
    credential: `role:${SUPERVISOR}@task`,
  });
  // One agent's server given another's credential acts as nobody.
  const wrong = await mcpAs(EXECUTOR, supervisorCredential.body.credential);
  expect(await call(wrong, 'status')).toEqual({ isError: false, text: expect.stringMatching(/^task is Complete/) });
  expect(await call(wrong, 'heartbeat')).toEqual({
    isError: true,
    text: expect.stringMatching(/^CredentialScopeError: Refused/),
  });
}, 120_000); // a dozen processes started one after another, on a busy machine too
