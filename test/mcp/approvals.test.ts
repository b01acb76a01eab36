/**
 * Claude Code's permission prompt through `statewright mcp`, against a real `statewright serve`
 * hosting a session whose agent is a stand-in (examples/agents/until-file.sh). The test plays
 * Claude: it reads the MCP server and the permission prompt tool from the agent's own command line
 * (what serve gave it by default) and the session id and token from its environment (what Claude
 * passes on to the servers it starts), starts that server with the SDK's Client and calls the tool
 * as Claude 2.1.328 does. The call waits in waiting_input until a person decides through the API.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { endWithTest, startCommand } from '../support/child-processes.js';
import { api, startServeProcess, type ServeProcess } from '../support/serve-process.js';
import { until } from '../support/until.js';
import { bin, connectMcp, textOf } from './mcp-client.js';

const agent = fileURLToPath(new URL('../../examples/agents/until-file.sh', import.meta.url));
const path = (runId: string) => `/api/runs/${encodeURIComponent(runId)}`;

interface Session {
  readonly run: any;
  /** The agent's own argv and environment, as the kernel shows them. */
  readonly argv: string[];
  readonly env: Record<string, string>;
}

/** Starts a session on `serve` whose agent works until released; resolves once it runs. */
async function startSession(serve: ServeProcess, dir: string, id: string, config: Record<string, unknown> = {}) {
  const release = join(dir, `${id}.release`);
  const started = await api(serve.url, 'POST', '/api/runs', {
    machine: 'session',
    id,
    input: {
      query: 'Make the test pass',
      config: { command: [agent], ...config, env: { STANDIN_RELEASE_FILE: release, ...(config.env as object) } },
    },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const run = await stateOf(serve, id, (r) => r.state === 'running');
  endWithTest(run.context.agent.pid);
  const proc = (file: string) => readFileSync(`/proc/${run.context.agent.pid}/${file}`, 'utf8').split('\0');
  const env = Object.fromEntries(
    proc('environ')
      .filter((entry) => entry.includes('='))
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
  return { run, argv: proc('cmdline'), env, release } satisfies Session & { release: string };
}

/** Waits until the session's committed state satisfies `wanted`. */
function stateOf(serve: ServeProcess, id: string, wanted: (run: any) => boolean): Promise<any> {
  return until(`session ${id} to reach the state wanted`, async () => {
    const { body } = await api(serve.url, 'GET', path(id));
    return body.run && wanted(body.run) ? body.run : undefined;
  });
}

const flag = (argv: string[], name: string) => argv[argv.indexOf(name) + 1]!;

/** The MCP server the agent was given, started as Claude starts it: the config's env over the agent's own. */
async function claudesServer(session: Session, cwd?: string) {
  const config = JSON.parse(flag(session.argv, '--mcp-config')) as {
    mcpServers: Record<string, { command: string; args: string[]; env?: Record<string, string> }>;
  };
  const server = config.mcpServers.statewright!;
  const inherited = {
    STATEWRIGHT_SESSION_ID: session.env.STATEWRIGHT_SESSION_ID!,
    STATEWRIGHT_TOKEN: session.env.STATEWRIGHT_TOKEN!,
  };
  return connectMcp({
    command: server.command,
    args: server.args,
    env: { ...inherited, ...server.env },
    ...(cwd && { cwd }),
  });
}

// A call stays open as long as the test may run (120 s): a serve killed and started again while a
// call waits took over 60 s end to end in a whole-suite run on a busy 2-core machine.
const approve = (
  client: Awaited<ReturnType<typeof claudesServer>>['client'],
  tool_name: string,
  input: Record<string, unknown>,
  tool_use_id: string,
) =>
  client.callTool({ name: 'approve', arguments: { tool_name, input, tool_use_id } }, undefined, { timeout: 115_000 });

const answerOf = async (call: ReturnType<typeof approve>) => {
  const result = await call;
  expect(result.isError).toBeFalsy();
  return JSON.parse(textOf(result));
};

it("gives the session serve's own approve tool; a call waits in waiting_input until a person approves or denies it", async () => {
  const dir = testDir('mcp-approvals');
  const serve = await startServeProcess(dir, ['--store', `sqlite:${join(dir, 'state.db')}`, '--create']);
  const session = await startSession(serve, dir, 's-approve');

  // The default wiring: serve's statewright mcp, pointed at serve, in the record and on the agent's command line.
  expect(flag(session.argv, '--permission-prompt-tool')).toBe('mcp__statewright__approve');
  expect(session.run.context.config.permission_prompt_tool).toBe('mcp__statewright__approve');
  expect(session.run.context.config.mcp_servers).toEqual({
    statewright: {
      command: process.execPath,
      args: [bin, 'mcp'],
      // Where serve's file beside the store is: how the call finds the next serve after a restart.
      env: { STATEWRIGHT_SERVER: serve.url, STATEWRIGHT_SERVER_DIR: `${join(dir, 'state.db')}.serve` },
    },
  });
  // The id and the session's own credential reach the agent's environment, never its command line;
  // serve's token reaches neither (test/serve/agent-credential.test.ts: what that credential cannot do).
  expect(session.env.STATEWRIGHT_SESSION_ID).toBe('s-approve');
  expect(session.env.STATEWRIGHT_TOKEN).toMatch(/^sw-session\./);
  expect(session.argv.join(' ')).not.toContain(session.env.STATEWRIGHT_TOKEN);
  expect(JSON.stringify([session.argv, session.env])).not.toContain(serve.token!);

  const { client } = await claudesServer(session);
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['approve']);

  let settled = false;
  const call = approve(client, 'Bash', { command: 'npm test' }, 'toolu_1');
  void call.finally(() => (settled = true));
  const waiting = await stateOf(serve, 's-approve', (r) => r.state === 'waiting_input');
  expect(waiting.context.approvals).toEqual([
    expect.objectContaining({
      tool_name: 'Bash',
      tool_input: { command: 'npm test' },
      tool_use_id: 'toolu_1',
      status: 'pending',
    }),
  ]);
  expect(settled).toBe(false);
  const resolved = await api(serve.url, 'POST', `${path('s-approve')}/events`, {
    event: { type: 'APPROVAL_RESOLVED', approval_id: waiting.context.approvals[0].approval_id, decision: 'approved' },
    actor: 'alice',
  });
  expect(resolved.status).toBe(200);
  expect(await answerOf(call)).toEqual({ behavior: 'allow', updatedInput: { command: 'npm test' } });
  expect((await stateOf(serve, 's-approve', () => true)).state).toBe('running');

  // The same tool call again: the same approval, answered at once, nothing new recorded.
  expect(await answerOf(approve(client, 'Bash', { command: 'npm test' }, 'toolu_1'))).toEqual({
    behavior: 'allow',
    updatedInput: { command: 'npm test' },
  });
  expect((await stateOf(serve, 's-approve', () => true)).context.approvals).toHaveLength(1);

  // A denial goes back with the person's comment.
  const denied = approve(client, 'Write', { file_path: 'main.ts', content: '' }, 'toolu_2');
  const second = await stateOf(serve, 's-approve', (r) => r.state === 'waiting_input');
  await api(serve.url, 'POST', `${path('s-approve')}/events`, {
    event: {
      type: 'APPROVAL_RESOLVED',
      approval_id: second.context.approvals[1].approval_id,
      decision: 'denied',
      comment: 'not on main',
    },
    actor: 'alice',
  });
  expect(await answerOf(denied)).toEqual({
    behavior: 'deny',
    message: 'A person denied Write in statewright session s-approve: not on main',
  });

  writeFileSync(session.release, '');
  expect((await stateOf(serve, 's-approve', (r) => r.status !== 'active')).state).toBe('completed');
});

// SIGTERM and SIGINT hand the agents over; after a SIGKILL the next serve adopts the agent still running.
it.each(['SIGTERM', 'SIGINT', 'SIGKILL'] as const)(
  'holds a pending call open while serve is away (%s), and answers it from the next serve on another port',
  async (signal) => {
    const dir = testDir(`mcp-approvals-${signal}`);
    const store = ['--store', `sqlite:${join(dir, 'state.db')}`];
    const env = { STATEWRIGHT_TOKEN: 'mcp-approvals-restart-token-0123456789' };
    const first = await startServeProcess(dir, [...store, '--create'], env);
    const session = await startSession(first, dir, 's-away');
    const { client, stderr } = await claudesServer(session);
    let settled = false;
    const call = approve(client, 'Bash', { command: 'npm test' }, 'toolu_1');
    void call.finally(() => (settled = true));
    await stateOf(first, 's-away', (r) => r.state === 'waiting_input');

    await first.stop(signal);
    const next = await startServeProcess(dir, store, env);
    expect(next.url).not.toBe(first.url);
    const waiting = await stateOf(next, 's-away', () => true);
    // The stand-in agent was adopted (after the crash too), and the call is still open.
    expect(waiting.state, JSON.stringify(waiting.context)).toBe('waiting_input');
    expect(waiting.context.agent.pid).toBe(session.run.context.agent.pid);
    expect(settled).toBe(false);
    const resolved = await api(next.url, 'POST', `${path('s-away')}/events`, {
      event: { type: 'APPROVAL_RESOLVED', approval_id: waiting.context.approvals[0].approval_id, decision: 'approved' },
      actor: 'alice',
    });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    expect(await answerOf(call), stderr()).toEqual({ behavior: 'allow', updatedInput: { command: 'npm test' } });
    // One request, one decision, whatever was sent again while serve was away.
    const history = (await api(next.url, 'GET', `${path('s-away')}/history`)).body.events as {
      event: { type: string };
    }[];
    expect(history.filter((e) => e.event.type.startsWith('APPROVAL_')).map((e) => e.event.type)).toEqual([
      'APPROVAL_REQUESTED',
      'APPROVAL_RESOLVED',
    ]);
    writeFileSync(session.release, '');
    expect((await stateOf(next, 's-away', (r) => r.status !== 'active')).state).toBe('completed');
    await next.stop('SIGTERM');
  },
);

it('reads what an agent wrote while serve was dead (its result and cost) before the next serve decides how the session ended', async () => {
  const dir = testDir('mcp-approvals-crash-result');
  const store = ['--store', `sqlite:${join(dir, 'state.db')}`];
  const first = await startServeProcess(dir, [...store, '--create']);
  const session = await startSession(first, dir, 's-crash', { env: { STANDIN_COST: '0.42' } });
  await first.stop('SIGKILL');
  // The agent finishes while no serve runs: its result goes to its log only.
  writeFileSync(session.release, '');
  await until('the agent to exit', () => !existsSync(`/proc/${session.run.context.agent.pid}`));
  const next = await startServeProcess(dir, store);
  const ended = await stateOf(next, 's-crash', (r) => r.status !== 'active');
  // Not "Session orphaned due to daemon restart": the agent's own result, and its cost.
  expect(ended.state, JSON.stringify(ended.context)).toBe('completed');
  expect(ended.context.cost_usd).toBe(0.42);
  expect(ended.context.result).toMatchObject({ text: 'Done when released.' });
  await next.stop('SIGTERM');
});

it("denies when the session's approval timeout runs out, and approves edits at once with auto_accept_edits", async () => {
  const dir = testDir('mcp-approval-rules');
  const serve = await startServeProcess(dir, ['--store', `sqlite:${join(dir, 'state.db')}`, '--create']);

  const edits = await startSession(serve, dir, 's-edits', { auto_accept_edits: true });
  const { client: editing } = await claudesServer(edits);
  expect(await answerOf(approve(editing, 'Edit', { file_path: 'a.ts' }, 'toolu_e'))).toEqual({
    behavior: 'allow',
    updatedInput: { file_path: 'a.ts' },
  });
  const after = await stateOf(serve, 's-edits', () => true);
  expect(after.state).toBe('running');
  expect(after.context.approvals).toEqual([
    expect.objectContaining({ tool_name: 'Edit', status: 'approved', auto_approved: 'auto_accept_edits' }),
  ]);

  const timed = await startSession(serve, dir, 's-timeout', { approval_timeout_ms: 1_000 });
  const { client } = await claudesServer(timed);
  expect(await answerOf(approve(client, 'Bash', { command: 'rm -rf build' }, 'toolu_t'))).toEqual({
    behavior: 'deny',
    message:
      "Nobody decided on Bash within the session's approval timeout (1000 ms) in statewright session s-timeout: denied.",
  });
  const failed = await stateOf(serve, 's-timeout', (r) => r.status !== 'active');
  expect(failed.state).toBe('failed');
  expect(failed.context.approvals[0].status).toBe('expired');
});

it("serve's statewright mcp, started in the session's folder, runs no config planted there", async () => {
  const dir = testDir('mcp-planted-config');
  const serve = await startServeProcess(dir, ['--store', `sqlite:${join(dir, 'state.db')}`, '--create']);
  const session = await startSession(serve, dir, 's-planted');
  // The folder the agent works in, with a config that would leave a file behind if it ran.
  const work = join(dir, 'hostile-repo');
  mkdirSync(work);
  const ran = join(dir, 'the-planted-config-ran');
  writeFileSync(
    join(work, 'statewright.config.ts'),
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(ran)}, 'ran');\nexport default { machines: [] };\n`,
  );
  const { client } = await claudesServer(session, work);
  // It answered initialize and lists its tools: any config it would have run has run by now.
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['approve']);
  expect(existsSync(ran)).toBe(false);

  // statewright mcp with no serve, which needs the lifecycles: it refuses the config it finds, naming it and --config.
  const refused = await startCommand(process.execPath, [bin, 'mcp', '--run', 's-planted', '--store', 'memory'], {
    cwd: work,
    reject: false,
    env: { STATEWRIGHT_SERVER: '', STATEWRIGHT_TOKEN: '', STATEWRIGHT_CONFIG: '' },
    input: '',
  });
  expect(refused.exitCode).toBe(1);
  expect(refused.stderr).toContain(`Not running the config ${join(work, 'statewright.config.ts')}`);
  expect(refused.stderr).toContain(`--config ${join(work, 'statewright.config.ts')}`);
  expect(existsSync(ran)).toBe(false);
  writeFileSync(session.release, '');
});

it('refuses to serve what does not exist, saying what to do', async () => {
  const dir = testDir('mcp-refusals');
  const mcp = (args: string[], env: Record<string, string>) =>
    startCommand(process.execPath, [bin, 'mcp', ...args], { cwd: dir, reject: false, env, input: '' });
  const none = { STATEWRIGHT_SESSION_ID: '', STATEWRIGHT_SERVER: '', STATEWRIGHT_TOKEN: '' };

  const noSession = await mcp([], none);
  expect(noSession.exitCode).toBe(2);
  expect(noSession.stderr).toMatch(/none is named: .*STATEWRIGHT_SESSION_ID.*Give --session <id>/);

  const noServer = await mcp(['--store', `sqlite:${join(dir, 'none.db')}`], { ...none, STATEWRIGHT_SESSION_ID: 's-1' });
  expect(noServer.exitCode).toBe(1);
  expect(noServer.stderr).toMatch(/none was found.*set STATEWRIGHT_SERVER/);

  const badAgent = await mcp(['--task', dir, '--as', 'boss'], none);
  expect(badAgent.exitCode).toBe(2);
  expect(badAgent.stderr).toMatch(/Expected role:vendor:index/);

  const serve = await startServeProcess(dir, ['--store', `sqlite:${join(dir, 'state.db')}`, '--create']);
  const unknown = await mcp([], {
    STATEWRIGHT_SESSION_ID: 'nobody',
    STATEWRIGHT_SERVER: serve.url,
    STATEWRIGHT_TOKEN: serve.token!,
  });
  expect(unknown.exitCode).toBe(1);
  expect(unknown.stderr).toMatch(/nobody/);
});
