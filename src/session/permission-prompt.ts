/**
 * The permission prompt a host gives Claude by default, as hld does: `statewright mcp` as the MCP
 * server named `statewright` in the session's `--mcp-config`, and its `approve` tool as
 * `--permission-prompt-tool`. Filled into the session's config when it is launched, so the session
 * record shows what its agent runs with; a config that names its own permission prompt tool, or
 * its own server named statewright, is left as it is.
 *
 * The server's address goes in the MCP config (a command line anyone on the machine may read);
 * the credential that opens it does not: it reaches the MCP server through the agent's environment,
 * which Claude passes on to the servers it starts (see `permissionPromptEnv`). That credential is
 * the session's own (src/serve/scoped-credential.ts), never serve's token: the agent, and every
 * command it runs, may ask for approvals on its session and nothing more.
 */
// SESSION_ID_ENV from its own module: `statewright mcp` reads this before it answers `initialize`.
import { SESSION_ID_ENV } from '../../machines/session/agent.js';
import type { SessionConfig } from '../../machines/session/index.js';

/** The MCP server's name in the config: Claude calls its tools `mcp__statewright__<tool>`. */
export const STATEWRIGHT_MCP_SERVER = 'statewright';
export const APPROVE_TOOL = 'approve';
export const PERMISSION_PROMPT_TOOL = `mcp__${STATEWRIGHT_MCP_SERVER}__${APPROVE_TOOL}`;

/** Where `statewright mcp` finds the serve that hosts the session, and the token it shows. */
export const SERVER_ENV = 'STATEWRIGHT_SERVER';
export const TOKEN_ENV = 'STATEWRIGHT_TOKEN';
/**
 * Where the serve's file beside the store is: `statewright mcp` finds the next serve there once this
 * one went away (stopped, handed over, crashed), on whatever port it listens then.
 */
export const SERVER_DIR_ENV = 'STATEWRIGHT_SERVER_DIR';

export interface PermissionPrompt {
  /** The serve hosting the sessions: what the tool calls. */
  readonly url: string;
  /** The folder of the serve's file beside the store (server-file.ts), when it keeps one. */
  readonly serverDir?: string;
  /** The credential of a session's agent (scoped to that session), when the serve takes one. */
  readonly credential?: (sessionId: string) => string;
  /** How to start `statewright mcp`: the program (node) and its arguments (the statewright bin, `mcp`). */
  readonly command: string;
  readonly args: readonly string[];
}

/** A server named statewright that a host filled in: the host's own again (a continued session inherits its parent's). */
const filledByHost = (server: unknown): boolean => {
  const s = server as { args?: unknown; env?: Record<string, unknown> } | undefined;
  return Array.isArray(s?.args) && s.args.at(-1) === 'mcp' && typeof s.env?.[SERVER_ENV] === 'string';
};

/** `config` with the default permission prompt filled in where it names none of its own. */
export function withPermissionPrompt(config: SessionConfig | undefined, prompt: PermissionPrompt): SessionConfig {
  const own = config ?? {};
  const named = own.mcp_servers?.[STATEWRIGHT_MCP_SERVER];
  if (own.permission_prompt_tool && own.permission_prompt_tool !== PERMISSION_PROMPT_TOOL) return own;
  if (named !== undefined && !filledByHost(named)) return own;
  return {
    ...own,
    permission_prompt_tool: PERMISSION_PROMPT_TOOL,
    mcp_servers: {
      ...own.mcp_servers,
      [STATEWRIGHT_MCP_SERVER]: {
        command: prompt.command,
        args: [...prompt.args],
        env: {
          [SERVER_ENV]: prompt.url,
          ...(prompt.serverDir !== undefined && { [SERVER_DIR_ENV]: prompt.serverDir }),
        },
      },
    },
  };
}

/**
 * What the session's agent process gets in its environment beside its config's: the session's id
 * (the tool asks for approvals on it) and, with a host's permission prompt, the session's own
 * credential as STATEWRIGHT_TOKEN, in place of any token the host's own environment holds (empty,
 * which counts as unset, on a host without a token): the agent never inherits serve's token.
 */
export function permissionPromptEnv(sessionId: string, prompt: PermissionPrompt | undefined): Record<string, string> {
  return { [SESSION_ID_ENV]: sessionId, ...(prompt && { [TOKEN_ENV]: prompt.credential?.(sessionId) ?? '' }) };
}
