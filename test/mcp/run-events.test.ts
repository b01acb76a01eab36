/**
 * A run's events as tools through `statewright mcp --run <id>`: the events the run accepts in its
 * state now, each with the input schema its metadata guard checks, the list following the run's
 * steps (`notifications/tools/list_changed`), and the runtime's refusals as tool errors. Through a
 * real serve, and on a store no serve holds (opened once `initialize` is answered).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { endWithTest, startCommand } from '../support/child-processes.js';
import { api, startServeProcess } from '../support/serve-process.js';
import { until } from '../support/until.js';
import { bin, connectStatewrightMcp, textOf } from './mcp-client.js';

type Client = Awaited<ReturnType<typeof connectStatewrightMcp>>['client'];

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

/** Resolves at the next tools/list_changed the client hears. */
function nextListChange(client: Client): Promise<void> {
  return new Promise((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
  const result = await client.callTool({ name, arguments: args });
  return { isError: result.isError === true, text: textOf(result) };
};

it("offers an execution run's accepted events, follows its steps, and answers the runtime's refusal", async () => {
  const dir = testDir('mcp-run-events');
  const serve = await startServeProcess(dir, ['--store', `sqlite:${join(dir, 'state.db')}`, '--create']);
  expect((await api(serve.url, 'POST', '/api/runs', { machine: 'execution', id: 'build-1' })).status).toBe(201);
  const { client } = await connectStatewrightMcp(['--run', 'build-1', '--actor', 'ci-bot'], {
    STATEWRIGHT_SERVER: serve.url,
    STATEWRIGHT_TOKEN: serve.token!,
  });
  expect(await names(client)).toEqual(['ENQUEUE', 'CANCEL', 'SKIP', 'HOLD', 'WAIT']);

  const changed = nextListChange(client);
  expect(JSON.parse((await call(client, 'ENQUEUE')).text)).toMatchObject({ runId: 'build-1', state: 'queued' });
  await changed;
  expect(await names(client)).toEqual(['START', 'FAIL', 'CANCEL']);
  // A step sent by someone else moves the list too.
  const moved = nextListChange(client);
  await api(serve.url, 'POST', '/api/runs/build-1/events', { event: { type: 'START' } }); // no actor given
  await moved;
  expect(await names(client)).toEqual(['SUCCEED', 'FAIL', 'CANCEL', 'CANCEL_GRACEFUL', 'RECOVER']);

  // HOLD was offered in pending: called now, the runtime refuses it, in its words.
  const refused = await call(client, 'HOLD');
  expect(refused.isError).toBe(true);
  expect(refused.text).toMatch(/^InvalidTransitionError: .*HOLD.*running/);
  const history = (await api(serve.url, 'GET', '/api/runs/build-1/history')).body.events;
  expect(history.map((e: { event: { type: string }; actor?: string }) => [e.event.type, e.actor])).toEqual([
    ['ENQUEUE', 'ci-bot'],
    ['START', undefined],
  ]);
});

it("gives each event the input schema of its metadata guard; a payload it refuses is the runtime's error", async () => {
  const dir = testDir('mcp-run-schemas');
  const serve = await startServeProcess(dir, ['--store', `sqlite:${join(dir, 'state.db')}`, '--create']);
  const agent = fileURLToPath(new URL('../../examples/agents/until-file.sh', import.meta.url));
  await api(serve.url, 'POST', '/api/runs', {
    machine: 'session',
    id: 's-1',
    input: { query: 'Work', config: { command: [agent], env: { STANDIN_RELEASE_FILE: join(dir, 'never') } } },
  });
  const running = await until('the session to run', async () => {
    const { body } = await api(serve.url, 'GET', '/api/runs/s-1');
    return body.run?.state === 'running' && body.run;
  });
  endWithTest(running.context.agent.pid);
  const { client } = await connectStatewrightMcp(['--run', 's-1'], {
    STATEWRIGHT_SERVER: serve.url,
    STATEWRIGHT_TOKEN: serve.token!,
  });
  const tools = (await client.listTools()).tools;
  expect(tools.map((t) => t.name)).toContain('agent_assistant');
  const requested = tools.find((t) => t.name === 'APPROVAL_REQUESTED')!;
  expect(requested.inputSchema).toMatchObject({
    type: 'object',
    properties: { approval_id: { type: 'string' }, tool_name: { type: 'string' }, tool_input: { type: 'object' } },
  });
  expect(Object.keys(requested.inputSchema.properties!)).not.toContain('at');
  expect(requested.inputSchema.required).toEqual(['approval_id', 'tool_name', 'tool_input']);

  const refused = await call(client, 'APPROVAL_REQUESTED', { approval_id: 'a-1', tool_name: 'Bash' });
  expect(refused.isError).toBe(true);
  expect(refused.text).toMatch(/^MetadataValidationError: .*tool_input/);
  // The interrupt waits for the agent's last words: its exit on SIGINT, or the grace's end, fails the session.
  const interrupted = await call(client, 'INTERRUPT', { reason: 'enough' });
  expect(JSON.parse(interrupted.text)).toMatchObject({ state: 'running', context: { interrupt_requested: {} } });
  await until('the interrupted session to fail', async () => {
    const { body } = await api(serve.url, 'GET', '/api/runs/s-1');
    return body.run?.state === 'failed';
  });
  expect(await names(client)).toEqual([]);
});

it('works on a store no serve holds, for a machine that needs no host; refuses an unknown run', async () => {
  const dir = testDir('mcp-run-store');
  const store = `sqlite:${join(dir, 'state.db')}`;
  const started = await startCommand(
    process.execPath,
    [bin, 'start', 'execution', '--id', 'e-1', '--store', store, '--create'],
    {
      cwd: dir,
      reject: false,
    },
  );
  expect(started.exitCode, started.stderr).toBe(0);
  const { client } = await connectStatewrightMcp(['--run', 'e-1', '--store', store], { STATEWRIGHT_SERVER: '' }, dir);
  const changed = nextListChange(client);
  expect((await call(client, 'SKIP')).isError).toBe(false);
  await changed;
  expect(await names(client)).toEqual([]);

  // The run is read once `initialize` is answered: an agent connected to an unknown run gets the refusal as a tool error.
  const lost = await connectStatewrightMcp(['--run', 'nope', '--store', store], { STATEWRIGHT_SERVER: '' }, dir);
  const refusal = await call(lost.client, 'SKIP');
  expect(refusal.isError).toBe(true);
  expect(refusal.text).toMatch(/^RunNotReachableError: Run 'nope' is not in the store sqlite:/);
  await expect(lost.client.listTools()).rejects.toThrow(/Run 'nope' is not in the store/);

  const unknown = await startCommand(process.execPath, [bin, 'mcp', '--run', 'nope', '--store', store], {
    cwd: dir,
    reject: false,
    input: '',
    env: { STATEWRIGHT_SERVER: '' },
  });
  expect(unknown.exitCode).toBe(1);
  expect(unknown.stderr).toMatch(
    /Run 'nope' is not in the store sqlite:.*no statewright serve was found.*give --server/,
  );
});
