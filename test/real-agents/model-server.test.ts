/**
 * The scripted model server, driven by the real CLIs: what each streams back is what the real
 * `claude` and `codex` accept (text, a tool call they run, usage), and its HTTP errors and cut
 * streams reach them as the real API's would. The lifecycles' tests with real agents build on this.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';
import { ModelServer, type Reply } from './model-server/model-server.js';
import { assertRealAgentsInstalled, CLAUDE_BIN, claudeEnv, codexCommand, codexEnv } from './real-agents.js';

const servers: ModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
beforeAll(assertRealAgentsInstalled);

async function serverWith(...script: Reply[]): Promise<ModelServer> {
  const server = await ModelServer.start(script);
  servers.push(server);
  return server;
}

const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

function claude(server: ModelServer, prompt: string, args: string[] = []) {
  const dir = testDir('claude');
  const child = startCommand(CLAUDE_BIN, ['-p', '--output-format', 'stream-json', '--verbose', ...args], {
    input: prompt,
    cwd: dir,
    env: claudeEnv(server, { home: dir }),
    reject: false,
  });
  return { dir, child };
}

function codex(server: ModelServer, prompt: string, args: string[] = []) {
  const dir = testDir('codex');
  const [bin, ...rest] = codexCommand(server, { home: dir, args, streamRetries: 1 });
  const child = startCommand(bin!, rest, { input: prompt, cwd: dir, env: codexEnv({ home: dir }), reject: false });
  return { dir, child };
}

describe('the real claude against the scripted server', () => {
  test('a tool call it runs for real, then text, with the usage the server counted', async () => {
    const server = await serverWith(
      { blocks: [{ tool: 'Bash', input: { command: 'echo ran > out.txt', description: 'write a file' } }] },
      { blocks: [{ text: 'all done' }], usage: { input: 200, output: 30 } },
    );
    const { dir, child } = claude(server, 'write the file', ['--allowedTools', 'Bash']);
    const { exitCode, stdout } = await child;
    expect(exitCode).toBe(0);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('ran\n');
    const result = lines(stdout).find((line) => line.type === 'result');
    expect(result).toMatchObject({ is_error: false, result: 'all done' });
    expect((result?.usage as { output_tokens?: number } | undefined)?.output_tokens).toBeGreaterThanOrEqual(30);
    // The tool's result went back to the model in the second call.
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('tool_result');
    server.assertAllAnswered();
  });

  test('an HTTP 529 with no retries ends it with an error result', async () => {
    const server = await serverWith({ status: 529, errorMessage: 'Overloaded' });
    const { child } = claude(server, 'hello');
    const { exitCode, stdout } = await child;
    expect(exitCode).not.toBe(0);
    expect(lines(stdout).find((line) => line.type === 'result')).toMatchObject({ is_error: true });
  });
});

describe('the real codex against the scripted server', () => {
  test('its shell tool runs for real, then its message and usage', async () => {
    const server = await serverWith(
      { blocks: [{ tool: 'exec_command', input: { cmd: 'echo ran > out.txt' } }] },
      { blocks: [{ text: 'codex done' }], usage: { input: 100, output: 50 } },
    );
    const { dir, child } = codex(server, 'write the file', ['-s', 'workspace-write']);
    const { exitCode, stdout } = await child;
    expect(exitCode).toBe(0);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('ran\n');
    const out = lines(stdout);
    expect(
      out.find((line) => line.type === 'item.completed' && (line.item as { type: string }).type === 'agent_message'),
    ).toMatchObject({ item: { text: 'codex done' } });
    expect(out.find((line) => line.type === 'turn.completed')).toMatchObject({ usage: { output_tokens: 54 } });
    server.assertAllAnswered();
  });

  test('a stream cut midway is reconnected: an error line, then the turn completes', async () => {
    const server = await serverWith(
      { blocks: [{ text: 'partial' }], cutAfterEvents: 2 },
      { blocks: [{ text: 'whole' }] },
    );
    const { child } = codex(server, 'hello');
    const { exitCode, stdout } = await child;
    expect(exitCode).toBe(0);
    const out = lines(stdout);
    expect(out.some((line) => line.type === 'error' && String(line.message).startsWith('Reconnecting... 1/1'))).toBe(
      true,
    );
    expect(out.at(-1)).toMatchObject({ type: 'turn.completed' });
  });
});
