/**
 * `createMcpServer` as a library, on a `Runtime` in this process (an app that embeds statewright):
 * the approve tool over the SDK's in-memory transport, its wait following the runtime's committed
 * steps; and a run's events as tools, the list told changed after a step.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { fromCallback } from 'xstate';
import { expect, it, onTestFinished } from 'vitest';
import { createMcpServer, type McpServerOptions } from '../../src/mcp/mcp-server.js';
import { memoryStore } from '../../src/stores/index.js';
import { testDir } from '../stores/temp-dir.js';
import { startDaemon } from '../support/session-daemon.js';
import { textOf } from './mcp-client.js';

/** A daemon whose sessions' agent does nothing: the test sends what Claude would report. */
async function daemon() {
  const store = memoryStore();
  const sessions = await startDaemon({
    store,
    logDir: testDir('mcp-in-process'),
    agent: () => fromCallback(() => {}),
    activity: false,
  });
  onTestFinished(async () => {
    await sessions.close({ timeoutMs: 0 });
    await sessions.runtime.close();
    await store.close();
  });
  return sessions;
}

async function connect(options: McpServerOptions) {
  const mcp = await createMcpServer(options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.server.connect(serverSide);
  const client = new Client({ name: 'in-process', version: '1.0.0' });
  await client.connect(clientSide);
  onTestFinished(async () => {
    await client.close();
    await mcp.close();
  });
  return client;
}

it('answers the approve tool from the runtime: pending until a decision commits, then allow or deny', async () => {
  const sessions = await daemon();
  const { runtime } = sessions;
  await sessions.launch({ id: 's-1', query: 'Fix it' });
  await runtime.dispatch('s-1', { type: 'agent.session', sessionId: 'claude-1' });
  const client = await connect({ version: '0.0.0', approvals: { sessionId: 's-1' }, target: { runtime } });

  let settled = false;
  const call = client.callTool({
    name: 'approve',
    arguments: { tool_name: 'Bash', input: { command: 'ls' }, tool_use_id: 't-1' },
  });
  void call.finally(() => (settled = true));
  const waiting = await new Promise<string>((resolve) => {
    const stop = runtime.subscribe((step) => {
      if (step.runId === 's-1' && step.after === 'waiting_input') {
        stop();
        resolve((step.snapshot.context as { approvals: { approval_id: string }[] }).approvals[0]!.approval_id);
      }
    });
  });
  expect(settled).toBe(false);
  await sessions.deny('s-1', waiting, { comment: 'use git ls-files' });
  expect(JSON.parse(textOf(await call))).toEqual({
    behavior: 'deny',
    message: 'A person denied Bash in statewright session s-1: use git ls-files',
  });

  // A session that ends while the call waits: denied, saying so.
  const late = client.callTool({
    name: 'approve',
    arguments: { tool_name: 'Edit', input: { file_path: 'a' }, tool_use_id: 't-2' },
  });
  await new Promise<void>((resolve) => {
    const stop = runtime.subscribe((step) => step.after === 'waiting_input' && (stop(), resolve()));
  });
  await sessions.interrupt('s-1');
  expect(JSON.parse(textOf(await late))).toEqual({
    behavior: 'deny',
    message: 'Statewright session s-1 ended (failed) before anyone decided on Edit: denied.',
  });
});

it("offers a run's accepted events and tells the client when a step changes them", async () => {
  const { runtime } = await daemon();
  await runtime.start('execution', { id: 'e-1' });
  const client = await connect({ version: '0.0.0', run: { runId: 'e-1' }, target: { runtime } });
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['ENQUEUE', 'CANCEL', 'SKIP', 'HOLD', 'WAIT']);
  const changed = new Promise<void>((resolve) =>
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
  );
  await runtime.dispatch('e-1', { type: 'HOLD' });
  await changed;
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['APPROVE', 'REJECT', 'EXPIRE', 'CANCEL']);
});
