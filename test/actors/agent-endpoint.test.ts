/**
 * Where an agent CLI's model calls go, and its command and environment pointed at the metering
 * proxy (src/actors/agent-wire/agent-endpoint.ts): Claude by ANTHROPIC_BASE_URL, Codex by its
 * provider (command line, config.toml, the built-in openai one), and what is left unmetered.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { findAgentEndpoint, type AgentEndpoint } from '../../src/actors/agent-wire/agent-endpoint.js';

const PROXY = 'http://127.0.0.1:9/secret';
const found = (command: string[], env: Record<string, string> = {}) =>
  findAgentEndpoint(command, { HOME: '/nonexistent', ...env }) as AgentEndpoint & { unmetered?: string };

describe('an agent’s model endpoint', () => {
  test('Claude: ANTHROPIC_BASE_URL, else the API; pointed by the same variable', () => {
    const claude = found(['/opt/bin/claude', '-p', '--output-format', 'stream-json']);
    expect(claude).toMatchObject({ api: 'messages', upstream: 'https://api.anthropic.com' });
    expect(claude.point(PROXY).env).toEqual({ ANTHROPIC_BASE_URL: PROXY });
    expect(found(['claude'], { ANTHROPIC_BASE_URL: 'http://gw:8080' }).upstream).toBe('http://gw:8080');
    expect(found(['claude'], { CLAUDE_CODE_USE_BEDROCK: '1' }).unmetered).toMatch(/CLAUDE_CODE_USE_BEDROCK/);
  });

  test('Codex with a provider on its command line: its base_url, overridden after every other -c', () => {
    const command = [
      'codex',
      'exec',
      '--json',
      '-c',
      'model_provider=local',
      '-c',
      'model_providers.local={name="local",base_url="http://127.0.0.1:5/v1",wire_api="responses"}',
      '-m',
      'gpt-test',
    ];
    const codex = found(command);
    expect(codex).toMatchObject({ api: 'responses', upstream: 'http://127.0.0.1:5/v1' });
    expect(codex.point(PROXY).command).toEqual([
      ...command.slice(0, 7),
      '-c',
      `model_providers.local.base_url="${PROXY}"`,
      '-m',
      'gpt-test',
    ]);
  });

  test('Codex from config.toml, and the built-in openai provider', () => {
    const home = mkdtempSync(join(tmpdir(), 'codex-home-'));
    try {
      writeFileSync(
        join(home, 'config.toml'),
        'model_provider = "corp"\n[model_providers.corp]\nname = "corp"\nbase_url = "https://llm.corp/v1"\n',
      );
      expect(found(['codex', 'exec'], { CODEX_HOME: home }).upstream).toBe('https://llm.corp/v1');
      const openai = found(['codex', 'exec', '-c', 'model_provider=openai'], { CODEX_HOME: home });
      expect(openai.upstream).toBe('https://api.openai.com/v1');
      expect(openai.point(PROXY).command).toEqual([
        'codex',
        'exec',
        '-c',
        'model_provider=openai',
        '-c',
        `openai_base_url="${PROXY}"`,
      ]);
      expect(found(['codex', 'exec'], { OPENAI_BASE_URL: 'http://gw/v1' }).upstream).toBe('http://gw/v1');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('leaves what it cannot follow unmetered, saying why', () => {
    expect(found(['./agent.sh']).unmetered).toMatch(/neither claude nor codex exec/);
    expect(found(['codex', 'exec', '--oss']).unmetered).toMatch(/--oss/);
    expect(found(['codex', 'exec', '-c', 'model_provider=x']).unmetered).toMatch(/no base_url/);
    expect(
      found([
        'codex',
        'exec',
        '-c',
        'model_provider=x',
        '-c',
        'model_providers.x={base_url="http://h",wire_api="chat"}',
      ]).unmetered,
    ).toMatch(/chat/);
  });
});
