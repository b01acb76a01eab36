/**
 * `statewright loop` (the built bin: npm run build first) with the real `codex exec --json` as its
 * primary, given on the command line as a person would give it, against the scripted model server:
 * the first iteration's stream drops and Codex reconnects (no agent error), the second resumes the
 * thread (`--primary-resume "resume {session}"`) and says DONE, and the loop completes.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, test } from 'vitest';
import { signalGroup } from '../../src/os/process-identity.js';
import { readTranscript } from '../../src/review-loop/transcript.js';
import { startCommand } from '../support/child-processes.js';
import { ModelServer } from './model-server/model-server.js';
import { assertRealAgentsInstalled, codexCommand, codexEnv } from './real-agents.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
beforeAll(assertRealAgentsInstalled);

/** One word of a command line, quoted for `--primary` (which splits words as a POSIX shell does). */
const quoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

test('statewright loop with a real codex primary: a reconnect survived, the thread resumed, DONE', async () => {
  const server = await ModelServer.start([
    { blocks: [{ text: 'Starting' }], cutAfterEvents: 2 },
    { blocks: [{ text: 'Step 1 is in.' }], usage: { input: 700, output: 20 } },
    { blocks: [{ text: 'Step 2 is in.\nDONE: both steps are in' }], usage: { input: 800, output: 30 } },
  ]);
  cleanups.push(() => server.close());
  const cwd = mkdtempSync(join(tmpdir(), 'loop-cli-codex-'));
  const home = mkdtempSync(join(tmpdir(), 'loop-cli-codex-home-'));
  cleanups.push(() => {
    rmSync(cwd, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });
  const transcript = join(cwd, '.statewright/loops/cli-1/transcript.jsonl');
  // The agents lead process groups of their own: whatever the loop left running ends with the test.
  cleanups.push(async () => {
    if (!existsSync(transcript)) return;
    for (const entry of (await readTranscript(transcript)).entries)
      if (entry.type === 'execution' && entry.pid !== undefined) signalGroup(entry.pid, 'SIGKILL');
  });

  const primary = codexCommand(server, { home, streamRetries: 1 }).map(quoted).join(' ');
  const result = await startCommand(
    process.execPath,
    [
      bin,
      'loop',
      'Implement two steps',
      '--single',
      '--primary',
      primary,
      '--primary-resume',
      'resume {session}',
      '--id',
      'cli-1',
    ],
    { cwd, env: codexEnv({ home }), reject: false },
  );
  expect(result.exitCode).toBe(0);
  // The reconnect is a warning, not the loop's error.
  expect(result.stderr.split('\n').filter(Boolean)).toEqual([
    expect.stringMatching(/^statewright warn: .*not a result.*: Reconnecting\.\.\. 1\/1 \(stream disconnected/),
  ]);
  expect(result.stdout.split('\n')).toContain('complete after 2 iteration(s): DONE: both steps are in');
  server.assertAllAnswered();

  const { entries } = await readTranscript(transcript);
  const results = entries.flatMap((e) => (e.type === 'result' ? [e] : []));
  const thread = results[0]!.sessionId!;
  expect(results.map((r) => [r.isError, r.sessionId, r.totalTokens])).toEqual([
    [false, thread, 720],
    [false, thread, 830],
  ]);
  const commands = entries.flatMap((e) => (e.type === 'execution' ? [e.command] : []));
  expect(commands[1]!.slice(-2)).toEqual(['resume', thread]);
});
