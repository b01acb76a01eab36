/**
 * The agent process actor with the real `codex exec --json` as its agent, against the scripted
 * model server: what the actor reports when Codex reconnects a dropped stream and carries on (its
 * `error` lines are not results: the turn's success and usage stand), when it gives up (the final
 * error decides, and is the exit's reason, not stderr's "Reading prompt from stdin..."), what a
 * turn's cache writes count, and what a resumed thread's turn costs on its own (Codex counts the
 * whole thread in `turn.completed.usage`; the actor reports the difference from the thread's total
 * before the run).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createActor, type AnyActorRef } from 'xstate';
import { createAgentProcess, type AgentProcessInput } from '../../src/actors/agent-process.js';
import { RecordingRun } from '../support/recording-run.js';
import { ModelServer, type Reply } from './model-server/model-server.js';
import { assertRealAgentsInstalled, codexCommand, codexEnv } from './real-agents.js';

const PRICING = { input: 2, output: 10, cacheCreation: 2.5, cacheRead: 0.5 };

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
beforeAll(assertRealAgentsInstalled);

async function serverWith(...script: Reply[]): Promise<ModelServer> {
  const server = await ModelServer.start(script);
  cleanups.push(() => server.close());
  return server;
}

function codexHome(): string {
  const dir = mkdtempSync(join(tmpdir(), 'codex-agent-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The actor running a real codex; stopping it (after each test) ends the agent's whole process tree. */
function runCodex(
  server: ModelServer,
  home: string,
  options: { streamRetries?: number; args?: string[]; log: string } & Partial<AgentProcessInput>,
) {
  const { streamRetries, args, log, ...input } = options;
  const run = new RecordingRun('run-1', 'test');
  const actor: AnyActorRef = createActor(createAgentProcess({ pollMs: 20 })(run), {
    input: {
      command: codexCommand(server, { home, streamRetries: streamRetries ?? 1, args: args ?? [] }),
      env: codexEnv({ home }),
      cwd: home,
      prompt: 'hello',
      logPath: join(home, 'logs', `${log}.jsonl`),
      pricing: PRICING,
      ...input,
    },
  }).start();
  cleanups.push(() => actor.stop());
  return run;
}

describe('the agent actor with a real codex', () => {
  test('a dropped stream that codex reconnects: its success and usage are the result, the exit is clean', async () => {
    const server = await serverWith(
      { blocks: [{ text: 'partial' }], cutAfterEvents: 2 },
      { blocks: [{ text: 'recovered' }], usage: { input: 1000, output: 50 } },
    );
    const run = runCodex(server, codexHome(), { log: 'reconnect' });
    const exited = await run.next('agent.exited', 60_000);
    expect(exited).toMatchObject({ code: 0, signal: null, reason: 'exited with code 0' });
    const results = run.events('agent.result');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({
      isError: false,
      result: 'recovered',
      totalTokens: 1050,
      usage: { input_tokens: 1000, output_tokens: 50 },
      costUsd: (1000 * 2 + 50 * 10) / 1e6,
    });
    // The reconnect is in the log, as a notice.
    expect(run.logs.some((l) => l.message.includes('Reconnecting... 1/1'))).toBe(true);
    server.assertAllAnswered();
  });

  test('codex gives up after its reconnects: the final error is the result and the exit reason', async () => {
    const server = await serverWith({ blocks: [{ text: 'partial' }], cutAfterEvents: 2, times: 3 });
    const run = runCodex(server, codexHome(), { log: 'gives-up', streamRetries: 2 });
    const exited = await run.next('agent.exited', 60_000);
    const final = 'stream disconnected before completion';
    expect(exited).toMatchObject({ code: 1, signal: null });
    expect(exited.reason).toMatch(new RegExp(`^exited with code 1: ${final}`));
    expect(exited.reason).not.toContain('Reading prompt from stdin');
    const results = run.events('agent.result');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ isError: true, totalTokens: 0 });
    expect(results[0]!.result).toMatch(new RegExp(`^${final}`));
    expect(server.requests).toHaveLength(3);
  });

  test("a turn's cache writes count, as Claude's cache creation does", async () => {
    const server = await serverWith({
      blocks: [{ text: 'cached' }],
      usage: { input: 1000, output: 50, cacheRead: 400, cacheWrite: 300 },
    });
    const run = runCodex(server, codexHome(), { log: 'cache' });
    const result = await run.next('agent.result', 60_000);
    expect(result).toMatchObject({
      usage: { input_tokens: 1000, cache_read_input_tokens: 400, cache_creation_input_tokens: 300, output_tokens: 50 },
      totalTokens: 1750,
      costUsd: (1000 * 2 + 400 * 0.5 + 300 * 2.5 + 50 * 10) / 1e6,
    });
  });

  test("a resumed thread's turn: its own usage and cost, the difference from the thread's total before it", async () => {
    const server = await serverWith(
      { blocks: [{ text: 'first' }], usage: { input: 1000, output: 50 } },
      { blocks: [{ text: 'second' }], usage: { input: 1200, output: 70 } },
    );
    const home = codexHome();
    const first = runCodex(server, home, { log: 'first' });
    const firstResult = await first.next('agent.result', 60_000);
    expect(firstResult).toMatchObject({ totalTokens: 1050, threadUsage: { input_tokens: 1000, output_tokens: 50 } });
    const thread = firstResult.sessionId as string;
    await first.next('agent.exited', 60_000);

    const second = runCodex(server, home, {
      log: 'second',
      args: ['resume', thread],
      threadUsage: { sessionId: thread, usage: firstResult.threadUsage },
    });
    const secondResult = await second.next('agent.result', 60_000);
    expect(secondResult).toMatchObject({
      sessionId: thread,
      result: 'second',
      usage: { input_tokens: 1200, output_tokens: 70 },
      totalTokens: 1270,
      costUsd: (1200 * 2 + 70 * 10) / 1e6,
      // What the thread has used in all, for the run after this one.
      threadUsage: { input_tokens: 2200, output_tokens: 120 },
    });
    server.assertAllAnswered();
  });
});
