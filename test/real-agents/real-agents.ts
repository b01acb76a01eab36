/**
 * The real agent CLIs installed in this folder (install.mjs) and how a test points them at a
 * scripted model server: the native binaries themselves (no Node wrapper to start, and the pid a
 * test sees is the agent's), the environment that keeps them offline and quiet, and the Codex
 * provider that sends its calls to the server. Each agent keeps its conversations under a folder
 * of the test's (Claude's HOME, Codex's CODEX_HOME), which a resume needs again.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ModelServer } from './model-server/model-server.js';

const here = fileURLToPath(new URL('.', import.meta.url));

export const CLAUDE_BIN = join(here, 'node_modules/@anthropic-ai/claude-code-linux-x64/claude');
export const CODEX_BIN = join(here, 'node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex');

/** Throws saying how to install them when the CLIs are not there (npm test installs them first). */
export function assertRealAgentsInstalled(): void {
  for (const bin of [CLAUDE_BIN, CODEX_BIN])
    if (!existsSync(bin))
      throw new Error(`${bin} is missing: run \`node test/real-agents/install.mjs\` (npm test runs it)`);
}

export interface ClaudeEnvOptions {
  /** Claude's HOME: where it keeps its conversations (kept across a --resume). */
  readonly home: string;
  /** CLAUDE_CODE_MAX_RETRIES (default 0: a scripted error is the answer, not a retry). */
  readonly maxRetries?: number;
  /** API_TIMEOUT_MS: how long Claude waits for the model before "Request timed out". */
  readonly apiTimeoutMs?: number;
}

/** The environment of a real `claude` that talks only to `server`. */
export function claudeEnv(server: ModelServer, options: ClaudeEnvOptions): Record<string, string> {
  return {
    HOME: options.home,
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'sk-test',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_MAX_RETRIES: String(options.maxRetries ?? 0),
    ...(options.apiTimeoutMs !== undefined && { API_TIMEOUT_MS: String(options.apiTimeoutMs) }),
  };
}

export interface CodexOptions {
  /** CODEX_HOME: where Codex keeps its threads (kept across `exec resume`). */
  readonly home: string;
  readonly model?: string;
  /** How often Codex reconnects a dropped stream before it gives up (its default is 5). */
  readonly streamRetries?: number;
  /** Extra `codex exec` arguments before the prompt (`-s workspace-write`, `resume <thread>` ...). */
  readonly args?: readonly string[];
}

/** A real `codex exec --json` command line whose model calls go to `server`, prompt on stdin. */
export function codexCommand(server: ModelServer, options: CodexOptions): string[] {
  const provider = [
    'name="local"',
    `base_url="${server.url}/v1"`,
    'wire_api="responses"',
    'env_key="OPENAI_API_KEY"',
    'request_max_retries=0',
    `stream_max_retries=${options.streamRetries ?? 5}`,
  ].join(',');
  return [
    CODEX_BIN,
    'exec',
    '--json',
    '--skip-git-repo-check',
    '-c',
    'model_provider=local',
    '-c',
    `model_providers.local={${provider}}`,
    '-m',
    options.model ?? 'gpt-test',
    ...(options.args ?? []),
  ];
}

/** The environment of a real `codex` that talks only to the scripted server. */
export function codexEnv(options: Pick<CodexOptions, 'home'>): Record<string, string> {
  return { CODEX_HOME: options.home, OPENAI_API_KEY: 'sk-test', RUST_LOG: 'error' };
}

export interface McpServerCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Record<string, string>;
}

/**
 * The `-c` arguments that give a real codex an MCP server, its tools approved: without
 * `default_tools_approval_mode = "approve"`, `codex exec` (approval policy never) fails every MCP
 * call with "requires approval". Codex offers the tools to the model in the namespace
 * `mcp__<name>`; the scripted server's `{ tool: 'mcp__<name>__<tool>' }` calls one.
 */
export function codexMcpArgs(name: string, server: McpServerCommand): string[] {
  const env = server.env
    ? `,env={${Object.entries(server.env)
        .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
        .join(',')}}`
    : '';
  return [
    '-c',
    `mcp_servers.${name}={command=${JSON.stringify(server.command)},args=${JSON.stringify(server.args)}${env},default_tools_approval_mode="approve"}`,
    '-c',
    `mcp_optional_startup_grace_ms=${MCP_STARTUP_GRACE_MS}`,
  ];
}

/**
 * How long `codex exec` waits for its MCP servers before the first turn (`mcp_optional_startup_grace_ms`):
 * by default it starts the turn without a server that has not answered `initialize` yet, and the
 * model's first calls of its tools fail as unsupported (seen on a busy machine, where `statewright
 * mcp` takes seconds to start).
 */
const MCP_STARTUP_GRACE_MS = 60_000;

/** Claude's `--mcp-config` argument for one MCP server; its tools are `mcp__<name>__<tool>`. */
export function claudeMcpArgs(name: string, server: McpServerCommand): string[] {
  return ['--mcp-config', JSON.stringify({ mcpServers: { [name]: { type: 'stdio', ...server } } })];
}
