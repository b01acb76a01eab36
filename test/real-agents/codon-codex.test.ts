/**
 * A codon whose agent is the real `codex exec --json` (its shell tool run in a workspace-write
 * sandbox), hosted by the runtime with the codon's real actors in a real git repository, against
 * the scripted model server: a dropped stream that Codex reconnects is no failure (the codon
 * completes, exit code 0, with the turn's tokens and cost), and a Codex that gives up fails the codon
 * with its final error, not with the first "Reconnecting..." or stderr's "Reading prompt from stdin".
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { isolateGit } from '../support/git-repo.js';
import type { Reply } from './model-server/model-server.js';
import { startRealAgentCodon } from './real-agent-codon.js';
import { assertRealAgentsInstalled, codexCommand, codexEnv } from './real-agents.js';

const PRICING = { input: 2, output: 10, cacheCreation: 2.5, cacheRead: 0.5 };

beforeAll(() => {
  assertRealAgentsInstalled();
  isolateGit();
});

/** Runs one codon with a real codex answered by `script`; resolves with its record once the run is done. */
async function codexCodon(script: Reply[], streamRetries: number) {
  const codon = await startRealAgentCodon({
    script,
    pricing: PRICING,
    agent: (server, home) => ({
      command: codexCommand(server, { home, streamRetries, args: ['-s', 'workspace-write'] }),
      env: codexEnv({ home }),
    }),
  });
  return { record: await codon.done(), repo: codon.repo, server: codon.server };
}

describe('a codon with a real codex as its agent', () => {
  test('a dropped stream that codex reconnects: the codon completes with the turn’s tokens and cost', async () => {
    const { record, repo, server } = await codexCodon(
      [
        { blocks: [{ text: 'Writing' }], cutAfterEvents: 2 },
        {
          blocks: [{ tool: 'exec_command', input: { cmd: 'echo notes > notes.md' } }],
          usage: { input: 800, output: 20 },
        },
        { blocks: [{ text: 'Wrote the notes.' }], usage: { input: 900, output: 30 } },
      ],
      1,
    );
    expect(record).toMatchObject({
      status: 'completed',
      exitCode: 0,
      resultMessageReceived: true,
      finalTokens: { inputTokens: 1700, outputTokens: 50, cacheCreationTokens: 0, cacheReadTokens: 0 },
    });
    expect(record.finalCost).toBeCloseTo((1700 * 2 + 50 * 10) / 1e6, 12);
    expect(readFileSync(join(repo.dir, 'notes.md'), 'utf8')).toBe('notes\n');
    expect(await repo.git('show', '--name-only', '--format=', record.completionCheckpoint)).toBe('notes.md');
    server.assertAllAnswered();
  });

  test('a codex that gives up after its reconnects fails the codon with its final error', async () => {
    const { record, server } = await codexCodon([{ blocks: [{ text: 'Writing' }], cutAfterEvents: 2, times: 3 }], 2);
    expect(record).toMatchObject({ status: 'failed', exitCode: 1, failedDuring: 'running' });
    expect(record.failureReason).toMatchObject({ type: 'api-error', retriable: true });
    expect(record.failureReason.message).toContain('stream disconnected before completion');
    expect(record.failureReason.message).not.toContain('Reading prompt from stdin');
    expect(record.failureReason.message).not.toContain('Reconnecting');
    expect(server.requests).toHaveLength(3);
  });
});
