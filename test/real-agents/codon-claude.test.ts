/**
 * A codon whose agent is the real `claude -p --output-format stream-json`, hosted by the runtime
 * with the codon's real actors in a real git repository, against the scripted model server: text
 * and a tool call it really runs, its budget (enforced within the message that crosses it, on the
 * message's final usage), its API timeout, and an HTTP 529 (the failure reason quotes Claude's own
 * error; Claude's synthetic error message is no assistant message).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import { isolateGit } from '../support/git-repo.js';
import type { Reply } from './model-server/model-server.js';
import { startRealAgentCodon } from './real-agent-codon.js';
import { assertRealAgentsInstalled, CLAUDE_BIN, claudeEnv, type ClaudeEnvOptions } from './real-agents.js';

/** USD per million tokens: the codon's running estimate (Claude's result carries its own cost). */
const PRICING = { input: 3, output: 15, cacheCreation: 3.75, cacheRead: 0.3 };

beforeAll(() => {
  assertRealAgentsInstalled();
  isolateGit();
});

interface ClaudeCodonOptions {
  budgetUsd?: number;
  env?: Omit<ClaudeEnvOptions, 'home'>;
}

/** One codon with a real claude answered by `script`. */
const claudeCodon = (script: Reply[], options: ClaudeCodonOptions = {}) =>
  startRealAgentCodon({
    script,
    pricing: PRICING,
    ...(options.budgetUsd !== undefined && { budgetUsd: options.budgetUsd }),
    agent: (server, home) => ({
      // As a user writes it: the codon adds --include-partial-messages.
      command: [CLAUDE_BIN, '-p', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash'],
      env: claudeEnv(server, { home, ...options.env }),
    }),
  });

describe('a codon with a real claude as its agent', () => {
  test('a tool call it really runs, then text: completed with the messages’ final usage and Claude’s own cost', async () => {
    const { done, repo, server, history } = await claudeCodon([
      {
        blocks: [{ tool: 'Bash', input: { command: 'echo notes > notes.md', description: 'write the notes' } }],
        usage: { input: 100, output: 40 },
      },
      { blocks: [{ text: 'Wrote the notes.' }], usage: { input: 200, output: 300 } },
    ]);
    const record = await done();
    expect(record).toMatchObject({
      status: 'completed',
      exitCode: 0,
      resultMessageReceived: true,
      assistantMessageCount: 2,
      finalTokens: { inputTokens: 300, outputTokens: 340 },
    });
    expect(record.budgetExceeded).toBeUndefined();
    expect(record.finalCost).toBeGreaterThan(0);
    expect(readFileSync(join(repo.dir, 'notes.md'), 'utf8')).toBe('notes\n');
    expect(await repo.git('show', '--name-only', '--format=', record.completionCheckpoint)).toBe('notes.md');
    // Each message once, with its final output count (message_delta), not message_start's 1.
    const messages = (await history()).filter((e) => e.type === 'agent.assistant');
    expect(messages.map((m) => (m as { usage?: { output_tokens?: number } }).usage?.output_tokens)).toEqual([40, 300]);
    server.assertAllAnswered();
  });

  test('the budget stops claude within the message that crosses it, before its next model call', async () => {
    let release!: () => void;
    // The stream is held after message_delta (before message_stop): Claude knows the message's
    // cost but cannot go on to its next call until the test lets it, so only the codon can end it.
    const hold = new Promise<void>((resolve) => (release = resolve));
    const { done, server, history } = await claudeCodon(
      [
        {
          blocks: [{ tool: 'Bash', input: { command: 'echo one > one.txt', description: 'step one' } }],
          // 100 x 3 + 5,000 x 15 per million = 0.0753 USD; message_start's usage alone reads 0.000315.
          usage: { input: 100, output: 5000 },
          hold,
          holdAfterEvents: 5,
        },
        { blocks: [{ text: 'Done.' }] },
      ],
      { budgetUsd: 0.01 },
    );
    onTestFinished(release);
    const record = await done(15_000);
    expect(record).toMatchObject({ status: 'completed', budgetExceeded: true, resultMessageReceived: false });
    expect(record.finalCost).toBeCloseTo(0.0753, 10);
    expect(server.requests).toHaveLength(1);
    // Claude ends on the codon's SIGTERM with code 143 (128 + 15), its result never written.
    expect((await history()).filter((e) => e.type === 'agent.exited')).toEqual([
      expect.objectContaining({ code: 143 }),
    ]);
  });

  test('an API timeout (API_TIMEOUT_MS) stops claude and fails the codon with a timeout', async () => {
    const { done } = await claudeCodon([{ blocks: [{ text: 'too late' }], delayMs: 5_000 }], {
      env: { apiTimeoutMs: 1_000 },
    });
    const record = await done();
    expect(record).toMatchObject({ status: 'failed', failedDuring: 'running', assistantMessageCount: 0 });
    expect(record.failureReason).toMatchObject({ type: 'timeout', retriable: true });
    expect(record.failureReason.message).toContain('Request timed out.');
  });

  test('an HTTP 529 fails the codon api-error with Claude’s own error text; its synthetic message is no assistant message', async () => {
    const { done, repo } = await claudeCodon([{ status: 529, errorMessage: 'Overloaded' }]);
    const record = await done();
    expect(record).toMatchObject({ status: 'failed', exitCode: 1, assistantMessageCount: 0, partialCost: 0 });
    expect(record.failureReason).toMatchObject({ type: 'api-error', retriable: true });
    expect(record.failureReason.message).toContain('API Error: 529 Overloaded');
    expect(existsSync(join(repo.dir, 'notes.md'))).toBe(false);
  });
});
