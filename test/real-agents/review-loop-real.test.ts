/**
 * The review loop with real agents against the scripted model server: a real Codex primary (its
 * shell tool really runs, in a workspace-write sandbox) and a real Claude reviewer, through a review
 * round that asks for changes and a second iteration in which each agent resumes its conversation
 * (`codex exec ... resume <thread>`, `claude ... --resume <session>`). Codex's dropped stream in the
 * second iteration is reconnected and the loop carries on; each iteration's tokens and cost are its
 * own (Codex counts the whole thread). A Codex that gives up fails the loop with its final error.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { signalGroup } from '../../src/os/process-identity.js';
import { reviewLoopLifecycle } from '../../src/review-loop/review-loops.js';
import type { LoopSettingsInput } from '../../src/review-loop/settings.js';
import { readTranscript, type TranscriptEntry } from '../../src/review-loop/transcript.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { memoryStore } from '../../src/stores/index.js';
import { ModelServer, type ModelRequest } from './model-server/model-server.js';
import { assertRealAgentsInstalled, CLAUDE_BIN, claudeEnv, codexCommand, codexEnv } from './real-agents.js';

const PRICING = { input: 2, output: 10, cacheCreation: 2.5, cacheRead: 0.5 };
const toCodex = (request: ModelRequest) => request.api === 'responses';
const toClaude = (request: ModelRequest) => request.api === 'messages';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
beforeAll(assertRealAgentsInstalled);

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A runtime with the review loop on it, in a fresh repository folder; every agent it starts is killed after the test. */
async function loopHost(server: ModelServer) {
  const repo = tempDir('real-loop-');
  const wiring = reviewLoopLifecycle({ baseDir: repo, graceMs: 500 });
  const runtime = await createRuntime({
    store: memoryStore(),
    machines: lifecycles,
    actors: wiring.actors,
    recover: false,
  });
  const loops = await wiring.attach(runtime);
  const pids: number[] = [];
  cleanups.push(async () => {
    await loops.close();
    await runtime.close();
    for (const pid of pids) signalGroup(pid, 'SIGKILL');
    await server.close();
  });
  const codexHome = tempDir('real-loop-codex-');
  const codex = (streamRetries: number) => ({
    name: 'codex' as const,
    command: codexCommand(server, { home: codexHome, streamRetries, args: ['-s', 'workspace-write'] }),
    resumeArgs: ['resume', '{session}'],
    env: codexEnv({ home: codexHome }),
    pricing: PRICING,
  });
  const claudeHome = tempDir('real-loop-claude-');
  const claude = {
    name: 'claude' as const,
    command: [CLAUDE_BIN, '-p', '--output-format', 'stream-json', '--verbose'],
    resumeArgs: ['--resume', '{session}'],
    env: claudeEnv(server, { home: claudeHome }),
  };
  const run = async (settings: LoopSettingsInput, id: string) => {
    const started = await loops.start(settings, {
      id,
      onEntry: (entry) => {
        if (entry.type === 'execution' && entry.pid !== undefined) pids.push(entry.pid);
      },
    });
    const outcome = await started.finished;
    const { entries, problems } = await readTranscript(join(started.runDir, 'transcript.jsonl'));
    expect(problems).toEqual([]);
    return { outcome, entries };
  };
  return { repo, codex, claude, run };
}

const resultsOf = (entries: TranscriptEntry[], agent: 'primary' | 'reviewer') =>
  entries.flatMap((e) => (e.type === 'result' && e.agent === agent ? [e] : []));
const commandsOf = (entries: TranscriptEntry[], agent: 'primary' | 'reviewer') =>
  entries.flatMap((e) => (e.type === 'execution' && e.agent === agent ? [e.command] : []));

describe('the review loop with a real codex primary and a real claude reviewer', () => {
  test('a review round, then both resume their conversations; a reconnect is survived; each iteration costs its own', async () => {
    const server = await ModelServer.start([
      // Iteration 1: codex runs its shell tool for real, then reports.
      {
        when: toCodex,
        blocks: [{ tool: 'exec_command', input: { cmd: 'echo one > step1.txt' } }],
        usage: { input: 500, output: 20 },
      },
      { when: toCodex, blocks: [{ text: 'Implemented step 1.' }], usage: { input: 600, output: 30 } },
      { when: toClaude, blocks: [{ text: 'NEEDS CHANGES: step 2 is missing' }], usage: { input: 300, output: 12 } },
      // Iteration 2: codex's stream drops once, it reconnects and completes its turn.
      { when: toCodex, blocks: [{ text: 'Implementing' }], cutAfterEvents: 2 },
      { when: toCodex, blocks: [{ text: 'Implemented step 2.' }], usage: { input: 900, output: 40 } },
      { when: toClaude, blocks: [{ text: 'PASS: both steps are in' }], usage: { input: 400, output: 8 } },
    ]);
    const host = await loopHost(server);
    const { outcome, entries } = await host.run(
      {
        prompt: 'Implement two steps.',
        reviewMode: 'claude',
        maxIterations: 3,
        primary: host.codex(1),
        reviewer: host.claude,
      },
      'real-1',
    );
    expect(outcome).toMatchObject({ state: 'complete', iterations: 2, reason: 'PASS: both steps are in' });
    expect(readFileSync(join(host.repo, 'step1.txt'), 'utf8')).toBe('one\n');
    server.assertAllAnswered();
    expect(server.unusedReplies).toBe(0);

    // Each agent's second run resumed its first run's conversation.
    const primary = resultsOf(entries, 'primary');
    const reviewer = resultsOf(entries, 'reviewer');
    const thread = primary[0]!.sessionId!;
    const session = reviewer[0]!.sessionId!;
    expect(primary.map((r) => r.sessionId)).toEqual([thread, thread]);
    expect(reviewer.map((r) => r.sessionId)).toEqual([session, session]);
    expect(commandsOf(entries, 'primary')[1]!.slice(-2)).toEqual(['resume', thread]);
    expect(commandsOf(entries, 'reviewer')[1]!.slice(-2)).toEqual(['--resume', session]);
    const codexCalls = server.requests.filter(toCodex);
    expect(JSON.stringify(codexCalls.at(-1)!.body.input)).toContain('Implemented step 1.');
    const claudeCalls = server.requests.filter(toClaude);
    expect(JSON.stringify(claudeCalls.at(-1)!.body.messages)).toContain('NEEDS CHANGES: step 2 is missing');

    // The reconnect is no error: the primary's second result is its success, with its own tokens and
    // cost (codex's turn.completed counted 2,090 for the thread).
    expect(primary.map((r) => [r.isError, r.output, r.totalTokens])).toEqual([
      [false, 'Implemented step 1.', 1150],
      [false, 'Implemented step 2.', 940],
    ]);
    expect(primary[1]!.costUsd).toBeCloseTo((900 * 2 + 40 * 10) / 1e6, 12);
    expect(primary[1]!.threadUsage).toMatchObject({ input_tokens: 2000, output_tokens: 90 });
    // Summed over the iterations, each model call counts once.
    expect(primary.reduce((sum, r) => sum + r.totalTokens!, 0)).toBe(500 + 20 + 600 + 30 + 900 + 40);
    expect(entries.some((e) => e.type === 'error')).toBe(false);
  });

  test('a codex that gives up after its reconnects fails the loop with its final error', async () => {
    const server = await ModelServer.start([
      { when: toCodex, blocks: [{ text: 'Impl' }], cutAfterEvents: 2, times: 2 },
    ]);
    const host = await loopHost(server);
    const { outcome, entries } = await host.run({ prompt: 'Implement it.', primary: host.codex(1) }, 'real-2');
    const final = 'stream disconnected before completion';
    expect(outcome).toMatchObject({ state: 'failed', iterations: 1 });
    expect(outcome.error).toMatch(new RegExp(`^primary reported an error: ${final}`));
    expect(outcome.error).not.toContain('Reconnecting');
    expect(resultsOf(entries, 'primary')).toEqual([
      expect.objectContaining({ isError: true, output: expect.stringMatching(new RegExp(`^${final}`)) }),
    ]);
    expect(server.requests).toHaveLength(2);
  });
});
