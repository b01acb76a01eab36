/**
 * The permission prompt a host fills into a session's config (src/session/permission-prompt.ts):
 * its own statewright mcp unless the config names a prompt tool or a statewright server of its own;
 * one a host filled before (a continued session's inheritance) is pointed at this host.
 */
import { describe, expect, it } from 'vitest';
import { permissionPromptEnv, withPermissionPrompt } from '../../src/session/index.js';

const prompt = {
  url: 'http://127.0.0.1:4680',
  credential: (sessionId: string) => `sw-session.${sessionId}.secret`,
  command: '/usr/bin/node',
  args: ['/opt/sw/bin/statewright.js', 'mcp'],
};
const ours = (url: string) => ({
  command: '/usr/bin/node',
  args: ['/opt/sw/bin/statewright.js', 'mcp'],
  env: { STATEWRIGHT_SERVER: url },
});

describe('withPermissionPrompt', () => {
  it('gives a config without one the statewright server and its approve tool, keeping the rest', () => {
    expect(withPermissionPrompt({ model: 'sonnet', mcp_servers: { docs: { command: 'docs-mcp' } } }, prompt)).toEqual({
      model: 'sonnet',
      permission_prompt_tool: 'mcp__statewright__approve',
      mcp_servers: { docs: { command: 'docs-mcp' }, statewright: ours(prompt.url) },
    });
    expect(withPermissionPrompt(undefined, prompt)).toEqual({
      permission_prompt_tool: 'mcp__statewright__approve',
      mcp_servers: { statewright: ours(prompt.url) },
    });
  });

  it('leaves a config that names its own prompt tool or its own statewright server as it is', () => {
    const ownTool = { permission_prompt_tool: 'mcp__approvals__ask', mcp_servers: { approvals: { command: 'x' } } };
    expect(withPermissionPrompt(ownTool, prompt)).toBe(ownTool);
    const ownServer = {
      mcp_servers: { statewright: { command: 'my-statewright', args: ['mcp', '--session', 's-9'] } },
    };
    expect(withPermissionPrompt(ownServer, prompt)).toBe(ownServer);
  });

  it('points a server a host filled before at this host (a continued session), and keeps the token off the config', () => {
    const inherited = withPermissionPrompt(undefined, { ...prompt, url: 'http://127.0.0.1:5000' });
    const again = withPermissionPrompt(inherited, prompt);
    expect(again.mcp_servers).toEqual({ statewright: ours(prompt.url) });
    expect(JSON.stringify(again)).not.toContain('secret');
    // The agent gets its session's own credential, never the host's token; none (empty: unset) from a host without one.
    expect(permissionPromptEnv('s-1', prompt)).toEqual({
      STATEWRIGHT_SESSION_ID: 's-1',
      STATEWRIGHT_TOKEN: 'sw-session.s-1.secret',
    });
    const { credential: _none, ...noToken } = prompt;
    expect(permissionPromptEnv('s-1', noToken)).toEqual({ STATEWRIGHT_SESSION_ID: 's-1', STATEWRIGHT_TOKEN: '' });
    expect(permissionPromptEnv('s-1', undefined)).toEqual({ STATEWRIGHT_SESSION_ID: 's-1' });
  });
});
