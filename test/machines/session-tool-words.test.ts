/** A session's tool call as its verdict names it: the tool and what it does, not its approval id. */
import { describe, expect, it } from 'vitest';
import { toolCallWords } from '../../machines/session/explain.js';

const call = (tool_name: string, tool_input: Record<string, unknown>) => ({
  tool_name,
  tool_input,
  approval_id: 'c20b08ae-5d1f-4c55-9a43-0f3f2a9b7d10',
});

describe("a tool call's words", () => {
  it('names the command, the file or the URL it acts on, on one line, cut when long', () => {
    expect(toolCallWords(call('Bash', { command: 'npm test', description: 'Run the tests' }))).toBe("Bash 'npm test'");
    expect(toolCallWords(call('Edit', { file_path: 'src/a.ts', old_string: 'x', new_string: 'y' }))).toBe(
      "Edit 'src/a.ts'",
    );
    expect(toolCallWords(call('WebFetch', { url: 'https://example.com', prompt: 'read it' }))).toBe(
      "WebFetch 'https://example.com'",
    );
    expect(toolCallWords(call('Bash', { command: 'git commit\n  -m "fix"' }))).toBe(`Bash 'git commit -m "fix"'`);
    const long = toolCallWords(call('Bash', { command: `echo ${'x'.repeat(200)}` }));
    expect(long).toHaveLength("Bash ''".length + 80);
    expect(long).toMatch(/…'$/);
  });

  it('falls back to the approval id when its input says nothing of what it does', () => {
    expect(toolCallWords(call('mcp__db__drop', { confirm: true }))).toBe(
      "mcp__db__drop 'c20b08ae-5d1f-4c55-9a43-0f3f2a9b7d10'",
    );
  });
});
