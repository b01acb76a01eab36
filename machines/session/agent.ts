/**
 * The session's agent: the Claude Code command line its configuration gives, the input of the
 * shared agent process actor, where approval decisions reach the agent, and the timer's input.
 */
import type { EventObject } from 'xstate';
import type { AgentInput } from '../agent-input.js';
import { PARTIAL_MESSAGES_FLAG } from '../claude-command.js';
import type { SessionContext } from './context.js';

/**
 * The Claude Code command line for a session: its config as flags, stream-json out, prompt on stdin,
 * and each message's final usage (`--include-partial-messages`), without which the running tokens
 * count one output token a message until the result.
 */
export function sessionClaudeCommand(context: Pick<SessionContext, 'config' | 'resume_claude_session_id'>): string[] {
  const c = context.config;
  const args = [
    ...(c.command ?? ['claude']),
    '--print',
    '--output-format',
    'stream-json',
    '--verbose',
    PARTIAL_MESSAGES_FLAG,
  ];
  if (context.resume_claude_session_id) args.push('--resume', context.resume_claude_session_id, '--fork-session');
  if (c.model) args.push('--model', c.model);
  if (c.system_prompt) args.push('--system-prompt', c.system_prompt);
  if (c.append_system_prompt) args.push('--append-system-prompt', c.append_system_prompt);
  if (c.permission_prompt_tool) args.push('--permission-prompt-tool', c.permission_prompt_tool);
  if (c.allowed_tools?.length) args.push('--allowedTools', c.allowed_tools.join(','));
  if (c.disallowed_tools?.length) args.push('--disallowedTools', c.disallowed_tools.join(','));
  for (const dir of c.additional_directories ?? []) args.push('--add-dir', dir);
  if (c.mcp_servers && Object.keys(c.mcp_servers).length)
    args.push('--mcp-config', JSON.stringify({ mcpServers: c.mcp_servers }));
  if (c.max_turns !== undefined) args.push('--max-turns', String(c.max_turns));
  return args;
}

/** The input of the shared agent process actor (src/actors/agent-process.ts): a session always has a prompt. */
export type SessionAgentInput = AgentInput & { prompt: string };

/**
 * Where the daemon appends each committed approval decision (one JSON line: approval_id, decision,
 * comment), and the environment variable that tells the agent (and the permission prompt tool it
 * starts, which inherits its environment) where to wait for them.
 */
export const sessionDecisionsPath = (logPath: string) => `${logPath}.decisions`;
export const SESSION_DECISIONS_ENV = 'STATEWRIGHT_SESSION_DECISIONS';
/**
 * The statewright session id, in the agent's environment: the permission prompt tool Claude starts
 * (`statewright mcp`) inherits it and asks for approvals on this session. (Claude's own
 * `CLAUDE_CODE_SESSION_ID` is Claude's conversation, not this run.) The session's agent actor
 * (src/session) sets it from the run it is started for: the record holds no id of its own, and the
 * input built here stays a function of the record alone.
 */
export const SESSION_ID_ENV = 'STATEWRIGHT_SESSION_ID';

export function sessionAgentInput(context: SessionContext): SessionAgentInput {
  return {
    command: sessionClaudeCommand(context),
    ...(context.config.working_dir && { cwd: context.config.working_dir }),
    env: { ...context.config.env, [SESSION_DECISIONS_ENV]: sessionDecisionsPath(context.log_path) },
    prompt: context.query,
    logPath: context.log_path,
    ...(context.config.pricing && { pricing: context.config.pricing }),
  };
}

/** The input of the durable timer actor (src/runtime/timers/deadline-timer.ts). */
export interface SessionDeadlineInput {
  deadline: number;
  event: EventObject;
}

/** What the agent process is sent to interrupt it: hld's Interrupt() is SIGINT. */
export const SESSION_AGENT_INTERRUPT = { type: 'agent.signal', signal: 'SIGINT' } as const;
