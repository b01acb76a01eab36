/**
 * `statewright mcp` as a library: an MCP server (the SDK's `Server`) offering one of three tool
 * sets, on runs reached in this process (a `Runtime`) or through a running `statewright serve`:
 *
 * - `approvals`: Claude Code's permission prompt tool `approve` for one session (approval-tools.ts);
 * - `task`: the ferrus task actions of one agent's role on a project folder (task-tools.ts);
 * - `run`: the events one run accepts now, as tools that follow its state (run-event-tools.ts).
 *
 * What is named is checked before anything is served: an unknown run, a run that is not a session.
 * `serveOverStdio` connects it to this process's stdin and stdout, as an agent starts it.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { AgentId } from '../../machines/index.js';
import type { ServerTarget } from '../client/server-client.js';
import type { Runtime } from '../runtime/runtime.js';
import { NotASessionError } from './mcp-errors.js';
import type { ToolSet } from './mcp-tool.js';
import type { RunAccess } from './run-access.js';
import { lazyToolSet } from './lazy-tools.js';
import { toolServer } from './tool-server.js';

/**
 * Where the runs are: a runtime in this process, or a serve's API. `serverDir`: where the serve's
 * file beside the store is, to find the next serve there once this one went away (serve-away.ts).
 */
export type McpTarget =
  | { readonly runtime: Runtime }
  /**
   * A runtime opened once `initialize` is answered, and closed with the server (`--run` mode only):
   * what `statewright mcp --run` opens with no serve. Its refusal (an unknown run, a machine that
   * needs a host) is the tools' error, and ends `serveOverStdio` with it.
   */
  | { readonly openRuntime: () => Promise<OpenedRuntime> }
  | { readonly server: ServerTarget; readonly serverDir?: string | undefined };

/** A runtime and how to let go of it (and of its store). */
export interface OpenedRuntime {
  readonly runtime: Runtime;
  close(): Promise<void>;
}

export type McpToolChoice =
  | {
      readonly approvals: { readonly sessionId: string };
      readonly target: Exclude<McpTarget, { openRuntime: unknown }>;
    }
  | { readonly run: { readonly runId: string; readonly actor?: string }; readonly target: McpTarget }
  /**
   * The task tools work on the project folder's own store, as `statewright task` does; given
   * `server` (a serve with a role credential as its token), through that serve's API instead.
   */
  | { readonly task: { readonly dir: string; readonly as: AgentId; readonly server?: ServerTarget } };

export type McpServerOptions = McpToolChoice & {
  /** The version the server reports (statewright's). */
  readonly version: string;
};

export interface StatewrightMcpServer {
  readonly server: Server;
  readonly tools: ToolSet;
  /**
   * Loads what the tools need and was left for after `initialize` (`openRuntime`), if not yet
   * loading; rejects with why the tools cannot be served. Resolves at once when nothing was left.
   */
  load(): Promise<void>;
  /** Closes the MCP connection and lets go of what the tools hold. */
  close(): Promise<void>;
}

// Each tool set, and each way to the runs, is loaded only when chosen: an agent waits for
// `initialize` only so long, and the others' modules would cost it (bench/mcp-startup.bench.ts).
async function accessOf(target: Exclude<McpTarget, { openRuntime: unknown }>): Promise<RunAccess> {
  if ('runtime' in target) return (await import('./runtime-access.js')).runtimeAccess(target.runtime);
  const [{ serverAccess }, { serverLocation }] = await Promise.all([
    import('./server-access.js'),
    import('./serve-away.js'),
  ]);
  return serverAccess(serverLocation(target.server, target.serverDir ?? target.server.serverDir));
}

export async function createMcpServer(options: McpServerOptions): Promise<StatewrightMcpServer> {
  const { tools, instructions, load } = await toolSetOf(options);
  const server = toolServer(tools, { name: 'statewright', version: options.version, instructions });
  return {
    server,
    tools,
    load: load ?? (async () => {}),
    async close() {
      await server.close();
      await tools.close();
    },
  };
}

async function toolSetOf(
  options: McpToolChoice,
): Promise<{ tools: ToolSet; instructions: string; load?: () => Promise<void> }> {
  if ('task' in options) {
    const { dir, as, server } = options.task;
    const { taskTools } = await import('./task-tools.js');
    return {
      tools: taskTools(dir, as, server),
      instructions: `The ferrus task of ${dir}, as ${as}${server ? ` through ${server.url}` : ''}: each tool is one of its actions; a refusal says why.`,
    };
  }
  if ('approvals' in options) {
    const { sessionId } = options.approvals;
    const access = await accessOf(options.target);
    const run = await access.run(sessionId); // UnknownRunError (or the server's refusal) before serving
    if (run.machine !== 'session') throw new NotASessionError(sessionId, run.machine);
    const { approvalTools } = await import('./approval-tools.js');
    return {
      tools: approvalTools(access, sessionId, approvalTimeoutOf(run.context)),
      instructions: `Claude Code's permission prompt for statewright session ${sessionId} on ${access.where}.`,
    };
  }
  const { runId, actor } = options.run;
  const { target } = options;
  if ('openRuntime' in target) {
    const tools = lazyToolSet(async () => {
      const [opened, { runtimeAccess }, { runEventTools }] = await Promise.all([
        target.openRuntime(),
        import('./runtime-access.js'),
        import('./run-event-tools.js'),
      ]);
      const events = runEventTools(runtimeAccess(opened.runtime), runId, actor === undefined ? {} : { actor });
      return {
        ...events,
        async close() {
          try {
            await events.close();
          } finally {
            await opened.close();
          }
        },
      };
    });
    return {
      tools,
      load: tools.load,
      instructions: `The events run ${runId} accepts now, in this process; the list follows its state.`,
    };
  }
  const access = await accessOf(target);
  const [run, { runEventTools }] = await Promise.all([access.run(runId), import('./run-event-tools.js')]);
  return {
    tools: runEventTools(access, runId, actor === undefined ? {} : { actor }),
    instructions: `The events ${run.machine} run ${runId} accepts now, on ${access.where}; the list follows its state.`,
  };
}

/** The session's approval timeout in ms, if it has one: how long a call waits out a serve that is away. */
function approvalTimeoutOf(context: unknown): number | undefined {
  const timeout = (context as { config?: { approval_timeout_ms?: unknown } }).config?.approval_timeout_ms;
  return typeof timeout === 'number' ? timeout : undefined;
}

/** Serves `mcp` on this process's stdin and stdout until the client closes the connection. */
export async function serveOverStdio(mcp: StatewrightMcpServer): Promise<void> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    // The agent ended: stdin closes, and nobody is left to answer.
    process.stdin.once('end', resolve);
  });
  await mcp.server.connect(transport);
  // What only the tools need is loaded once connected, after the `initialize` waiting on stdin is
  // answered. A load that failed is every list's and call's error while the client stays (the agent
  // reads why), and this server's when the client closes.
  const loaded = new Promise<void>((resolve) => setImmediate(resolve)).then(() => mcp.load());
  const failed = loaded.then(
    () => undefined,
    (e: Error) => e,
  );
  await closed;
  const error = await failed;
  await mcp.close();
  if (error) throw error;
}
