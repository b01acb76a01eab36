/**
 * The MCP side of the tests: the built `statewright mcp` (or any command an MCP config names)
 * started over stdio by the SDK's own `Client`, as an agent starts it; closed, and its process
 * ended, when the test finishes. Build first: `npm run build`.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { onTestFinished } from 'vitest';

export const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));

export interface McpConnection {
  readonly client: Client;
  /** What the server wrote to stderr so far. */
  stderr(): string;
}

/** Connects to `command args` over stdio with `env` (beside PATH and HOME); the server is ended with the test. */
export async function connectMcp(server: {
  command: string;
  args: readonly string[];
  env?: Record<string, string>;
  cwd?: string;
}): Promise<McpConnection> {
  const transport = new StdioClientTransport({
    command: server.command,
    args: [...server.args],
    env: { ...(server.env ?? {}) },
    ...(server.cwd && { cwd: server.cwd }),
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const client = new Client({ name: 'statewright-tests', version: '1.0.0' });
  onTestFinished(() => client.close());
  await client.connect(transport);
  return { client, stderr: () => err };
}

/** `statewright mcp ...args` of this checkout. */
export const connectStatewrightMcp = (args: readonly string[], env: Record<string, string>, cwd?: string) =>
  connectMcp({ command: process.execPath, args: [bin, 'mcp', ...args], env, ...(cwd && { cwd }) });

/** The text of a tool's answer (its one text block). */
export function textOf(result: unknown): string {
  const content = (result as CallToolResult).content;
  const text = content.find((block) => block.type === 'text');
  if (text?.type !== 'text') throw new Error(`no text block in ${JSON.stringify(result)}`);
  return text.text;
}
