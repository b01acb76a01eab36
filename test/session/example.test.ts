/**
 * The session example of docs/lifecycles/session.md is examples/session-with-approval.ts: this runs
 * it as a program and holds the page's copy to the file, so the code shown is code that works.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startProgram } from '../support/child-processes.js';

const example = fileURLToPath(new URL('../../examples/session-with-approval.ts', import.meta.url));
const page = fileURLToPath(new URL('../../docs/lifecycles/session.md', import.meta.url));

describe('the session example', () => {
  it('runs a session through an approval to completion, printing each committed status change and the audit trail', async () => {
    const { stdout } = await startProgram(example, []);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      'session-1: starting -> running',
      'session-1: running -> waiting_input',
      'session-1 awaits Bash {"command":"npm test"}',
      'session-1: waiting_input -> running',
      'session-1: running -> completed',
      'completed: $0.0123, 5900 tokens, "Tests pass; npm test was approved."',
      '  starting -> running on agent.session by agent: stream-json line at byte 0 of the agent log',
      '  running -> waiting_input on APPROVAL_REQUESTED by user: Bash needs approval',
      expect.stringMatching(
        /^ {2}waiting_input -> running on APPROVAL_RESOLVED by alice: approval [0-9a-f-]{36} approved$/,
      ),
      '  running -> completed on agent.exited by agent: the agent exited with code 0',
    ]);
  });

  it('is the code docs/lifecycles/session.md shows', () => {
    const section = readFileSync(page, 'utf8')
      .split('\n## ')
      .find((s) => s.startsWith('A Claude Code session with approvals'));
    expect(section, 'docs/lifecycles/session.md section "A Claude Code session with approvals"').toBeDefined();
    const shown = /```ts\n([\s\S]*?)```/.exec(section!)![1]!;
    // The file's opening comment is the page's prose.
    expect(shown).toBe(readFileSync(example, 'utf8').replace(/^(\/\/.*\n)+/, ''));
  });
});
