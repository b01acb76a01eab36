/**
 * A codon whose agent is the real `codex exec --json` (its shell tool run in a workspace-write
 * sandbox), hosted by the runtime with the codon's real actors in a real git repository, against
 * the scripted model server: a dropped stream that Codex reconnects is no failure (the codon
 * completes, exit code 0, with the turn's tokens and cost), and a Codex that gives up fails the codon
 * with its final error, not with the first "Reconnecting..." or stderr's "Reading prompt from stdin".
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { CodonInput } from '../../machines/codon/index.js';
import { lifecycles } from '../../machines/index.js';
import { createAgentProcess } from '../../src/actors/agent-process.js';
import { codonLifecycle } from '../../src/codon/codon-lifecycle.js';
import { createRuntime, type RunSnapshot } from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';
import { isolateGit, makeRepo } from '../support/git-repo.js';
import { ModelServer, type Reply } from './model-server/model-server.js';
import { assertRealAgentsInstalled, codexCommand, codexEnv } from './real-agents.js';

const PRICING = { input: 2, output: 10, cacheCreation: 2.5, cacheRead: 0.5 };

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
beforeAll(() => {
  assertRealAgentsInstalled();
  isolateGit();
});

/** Runs one codon with a real codex answered by `script`; resolves with its record once the run is done. */
async function codexCodon(script: Reply[], streamRetries: number) {
  const server = await ModelServer.start(script);
  cleanups.push(() => server.close());
  const repo = await makeRepo('codon-codex-');
  cleanups.push(repo.remove);
  // Outside the work tree: Codex's own files are not the codon's work.
  const home = mkdtempSync(join(tmpdir(), 'codon-codex-home-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const input: CodonInput = {
    runId: 'run-1',
    codonId: 'build',
    startedAt: Date.now(),
    workTree: repo.dir,
    agent: {
      command: codexCommand(server, { home, streamRetries, args: ['-s', 'workspace-write'] }),
      env: codexEnv({ home }),
      prompt: 'Write the notes.',
      logPath: join(repo.dir, '.git', 'statewright', 'build.log'),
      graceMs: 500,
    },
    pricing: PRICING,
  };
  const { actors } = codonLifecycle({ sentinels: () => [], agent: createAgentProcess({ pollMs: 20 }) });
  const runtime = await createRuntime({ store: memoryStore(), machines: lifecycles, actors });
  // Closing the runtime stops the agent actor, which ends whatever is left of the agent's process tree.
  cleanups.push(() => runtime.close());
  const done = new Promise<RunSnapshot>((resolve) => {
    const stop = runtime.subscribe((step) => {
      if (step.runId !== 'codon-1' || step.snapshot.status !== 'done') return;
      stop();
      resolve(step.snapshot);
    });
  });
  await runtime.start('codon', { id: 'codon-1', input });
  const snapshot = await done;
  return { record: snapshot.context.codon, repo, server };
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
