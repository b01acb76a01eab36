/**
 * Where an agent CLI sends its model calls, and its command line and environment pointed at the
 * metering proxy instead (metering-proxy.ts). Found from what the CLI itself reads:
 * - Claude Code (`claude`, or a command asking `--output-format stream-json`): the Messages API at
 *   `ANTHROPIC_BASE_URL`, else https://api.anthropic.com; it is given `ANTHROPIC_BASE_URL`.
 * - Codex (`codex exec`): the Responses API of its model provider, the `-c model_provider=` of its
 *   command line, else its config.toml's (under `CODEX_HOME`, else ~/.codex), else `openai`. The
 *   built-in `openai` provider's URL is `openai_base_url` (command line, then config.toml), else
 *   `OPENAI_BASE_URL`, else https://api.openai.com/v1, and it is given `-c openai_base_url=`; another
 *   provider's is its `base_url` (command line, then config.toml), given `-c
 *   model_providers.<name>.base_url=` after every other `-c`, so it wins.
 * What cannot be followed so (Claude on Bedrock or Vertex, Codex with `--oss`, a `--profile`, a
 * provider without a `base_url` or on the chat API) is not metered: `unmetered` says why.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { parse } from 'smol-toml';
import type { WireApi } from './call-usage.js';

export interface AgentEndpoint {
  api: WireApi;
  /** The base URL the CLI would call. */
  upstream: string;
  /** The command and the environment additions that send its calls to `proxyUrl` instead. */
  point(proxyUrl: string): { command: string[]; env: Record<string, string> };
}

export type FoundEndpoint = AgentEndpoint | { unmetered: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const asksStreamJson = (command: readonly string[]) =>
  command.some(
    (arg, i) =>
      arg === '--output-format=stream-json' || (arg === '--output-format' && command[i + 1] === 'stream-json'),
  );

/** `env`: the environment the agent will have (the host's and its own). */
export function findAgentEndpoint(command: readonly string[], env: Record<string, string | undefined>): FoundEndpoint {
  const program = basename(command[0] ?? '');
  if (/^codex(\.exe)?$/.test(program) && command.includes('exec')) return codexEndpoint(command, env);
  if (/^claude(\.exe)?$/.test(program) || asksStreamJson(command)) return claudeEndpoint(command, env);
  return { unmetered: `${program} is neither claude nor codex exec` };
}

function claudeEndpoint(command: readonly string[], env: Record<string, string | undefined>): FoundEndpoint {
  for (const cloud of ['CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX'])
    if (env[cloud] && env[cloud] !== '0')
      return { unmetered: `${cloud} is set: Claude calls its cloud, not a base URL` };
  return {
    api: 'messages',
    upstream: env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com',
    point: (proxyUrl) => ({ command: [...command], env: { ANTHROPIC_BASE_URL: proxyUrl } }),
  };
}

/** The `-c key=value` overrides of a Codex command line, in order, with where the last one ends. */
function configOverrides(command: readonly string[]): { overrides: [string, string][]; after: number } {
  const overrides: [string, string][] = [];
  let after = command.indexOf('exec') + 1;
  for (let i = 1; i < command.length; i++) {
    const arg = command[i]!;
    let text: string | undefined;
    if ((arg === '-c' || arg === '--config') && i + 1 < command.length) {
      text = command[i + 1];
      i += 1;
    } else if (arg.startsWith('--config=')) text = arg.slice('--config='.length);
    if (text === undefined) continue;
    after = i + 1;
    const eq = text.indexOf('=');
    if (eq > 0) overrides.push([text.slice(0, eq).trim(), text.slice(eq + 1).trim()]);
  }
  return { overrides, after };
}

/** A `-c` value as Codex reads it: TOML, else the text itself as a string. */
function tomlValue(raw: string): unknown {
  try {
    return parse(`v = ${raw}`).v;
  } catch {
    return raw;
  }
}

function codexConfig(env: Record<string, string | undefined>): Record<string, unknown> {
  const home = env.CODEX_HOME || join(env.HOME || homedir(), '.codex');
  const path = join(home, 'config.toml');
  if (!existsSync(path)) return {};
  try {
    return parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
}

function codexEndpoint(command: readonly string[], env: Record<string, string | undefined>): FoundEndpoint {
  if (command.includes('--oss')) return { unmetered: 'codex --oss calls a local model server of its own choice' };
  if (command.some((arg) => arg === '-p' || arg === '--profile' || arg.startsWith('--profile=')))
    return { unmetered: 'a codex --profile may name its own provider' };
  const { overrides, after } = configOverrides(command);
  const override = (key: string) => overrides.findLast(([name]) => name === key)?.[1];
  const config = codexConfig(env);
  const providerRaw = override('model_provider');
  const provider =
    providerRaw !== undefined ? String(tomlValue(providerRaw)) : String(config.model_provider ?? 'openai');
  const pointed = (key: string) => (proxyUrl: string) => ({
    command: [...command.slice(0, after), '-c', `${key}=${JSON.stringify(proxyUrl)}`, ...command.slice(after)],
    env: {},
  });
  if (provider === 'openai') {
    const set = override('openai_base_url');
    const upstream =
      (set !== undefined ? String(tomlValue(set)) : undefined) ??
      (typeof config.openai_base_url === 'string' ? config.openai_base_url : undefined) ??
      env.OPENAI_BASE_URL ??
      'https://api.openai.com/v1';
    return { api: 'responses', upstream, point: pointed('openai_base_url') };
  }
  const key = `model_providers.${provider}`;
  const inline = override(key);
  const fromConfig = isObject(config.model_providers) ? config.model_providers[provider] : undefined;
  const table = inline !== undefined ? tomlValue(inline) : fromConfig;
  const baseOverride = override(`${key}.base_url`);
  const upstream = baseOverride !== undefined ? tomlValue(baseOverride) : isObject(table) ? table.base_url : undefined;
  if (typeof upstream !== 'string' || upstream === '')
    return { unmetered: `codex's model provider ${provider} has no base_url statewright can find` };
  const wireApi = (override(`${key}.wire_api`) ?? (isObject(table) ? table.wire_api : undefined)) as unknown;
  if (wireApi !== undefined && String(tomlValue(String(wireApi))) !== 'responses')
    return { unmetered: `codex's model provider ${provider} speaks ${String(wireApi)}, not the Responses API` };
  return { api: 'responses', upstream, point: pointed(`${key}.base_url`) };
}
