/**
 * `statewright mcp`: an MCP server on stdin and stdout for an agent (src/mcp/). By default Claude
 * Code's permission prompt tool for the session named by STATEWRIGHT_SESSION_ID (what a session's
 * agent inherits), through the serve that hosts it; `--task <dir> --as <agent>` the ferrus task
 * tools of that agent's role; `--run <id>` the events a run accepts now. Nothing else is written
 * to stdout: it carries the protocol.
 */
import { Command, Option } from 'commander';
import type { AgentId } from '../../../machines/index.js';
import { SESSION_ID_ENV } from '../../../machines/session/agent.js';
import { SERVER_DIR_ENV } from '../../session/permission-prompt.js';
import {
  ApprovalServerMissingError,
  McpModeError,
  RunNotReachableError,
  SessionIdMissingError,
} from '../../mcp/mcp-errors.js';
import { createMcpServer, serveOverStdio, type McpServerOptions } from '../../mcp/mcp-server.js';
import type { Cli } from '../command.js';
import { storeOption } from '../open-store.js';
import { packageVersion } from '../package-version.js';
import { findServer, serverOption, tokenOption } from '../find-server.js';
import { agentOption } from '../task/agent-option.js';
import { isRoleCredential } from '../../serve/scoped-credential.js';

interface McpValues {
  readonly session?: string;
  readonly task?: string;
  readonly as?: AgentId;
  readonly run?: string;
  readonly actor?: string;
  readonly store?: string;
  readonly server?: string;
  readonly token?: string;
}

export const mcpCommand = (cli: Cli) =>
  new Command('mcp')
    .summary("an MCP server on stdio for an agent: Claude Code's approvals, a task's tools, a run's events")
    .description(
      "An MCP server on stdin and stdout, started by the agent (Claude Code's --mcp-config). By default it serves the tool `approve`, Claude Code's permission prompt (--permission-prompt-tool mcp__statewright__approve) for the statewright session in $STATEWRIGHT_SESSION_ID, through the serve that hosts it; `statewright serve` gives every session it launches this server. With --task <dir> --as <agent>: the actions of the ferrus task of that project for the agent's role, as tools (through the project's serve when STATEWRIGHT_TOKEN or --token is a role credential from `statewright task credential`). With --run <id>: the events the run accepts now, as tools that follow its state.",
    )
    .addOption(new Option('--session <id>', `the session to ask approvals on (default $${SESSION_ID_ENV})`))
    .addOption(new Option('--task <dir>', 'serve the task tools of this ferrus project folder (with --as)'))
    .addOption(agentOption())
    .addOption(new Option('--run <id>', "serve this run's accepted events as tools"))
    .addOption(new Option('--actor <name>', 'who sends the events of --run, in the audit trail').default('agent'))
    .addOption(storeOption())
    .addOption(serverOption())
    .addOption(tokenOption())
    .action(
      cli.exitsWith(async (values: McpValues) => {
        const version = packageVersion();
        const serve = async (options: McpServerOptions) => {
          await serveOverStdio(await createMcpServer(options));
          return 0;
        };
        const modes = [values.task !== undefined, values.run !== undefined, values.session !== undefined];
        if (modes.filter(Boolean).length > 1)
          throw new McpModeError('statewright mcp serves one tool set: give one of --session, --task and --run.');
        if (values.task !== undefined) {
          if (!values.as)
            throw new McpModeError(
              'statewright mcp --task needs the agent it works for: --as role:vendor:index, e.g. --as executor:claude:1.',
            );
          // A task role's credential: the tools go through the project's serve as that role, not to its store.
          const token = values.token ?? (process.env.STATEWRIGHT_TOKEN || undefined);
          if (token !== undefined && isRoleCredential(token)) {
            // Loaded here: it reads the task service's paths, more than `initialize` may wait for.
            const { taskServer } = await import('../task/task-server.js');
            const server = taskServer(values.task, { ...(values.server && { server: values.server }), token });
            return serve({ version, task: { dir: values.task, as: values.as, server } });
          }
          return serve({ version, task: { dir: values.task, as: values.as } });
        }
        if (values.as) throw new McpModeError('--as names the agent of --task: give --task <dir> with it.');
        // Told its server (as serve's MCP config tells it), it reads no server files from the working folder
        // unless --store names them: an agent could plant one there, naming its own server as a run's holder.
        const named = values.server ?? (process.env.STATEWRIGHT_SERVER || undefined);
        const server = findServer(values, { files: values.store !== undefined || named === undefined });
        // Where serve keeps its file beside the store, as it tells the statewright mcp it starts: the
        // next serve is found there once this one went away (src/mcp/serve-away.ts).
        const serverDir = process.env[SERVER_DIR_ENV] || undefined;
        if (values.run !== undefined) {
          const run = { runId: values.run, ...(values.actor && { actor: values.actor }) };
          if (server) return serve({ version, run, target: { server, serverDir } });
          // No serve: the runs on the store, for machines that need no host to act on them. Opened
          // once `initialize` is answered: the registry builds every lifecycle's machine, more than
          // an agent waits for its first answer (bench/mcp-startup.bench.ts); a refusal here (an
          // unknown run, a machine that needs a host) ends the server with it.
          const runId = values.run;
          const openRuntime = async () => {
            const [
              { machines },
              { openRuntimeOn },
              { storeOpener },
              { UnknownRunError },
              { needsHost, NoServerError },
            ] = await Promise.all([
              cli.registry(),
              import('../with-runtime.js'),
              import('../open-store.js'),
              import('../../runtime/errors.js'),
              import('../needs-host.js'),
            ]);
            const opened = await openRuntimeOn(storeOpener(values), machines);
            try {
              const { machine } = await opened.runtime.getSnapshot(runId).catch((error: Error) => {
                throw error instanceof UnknownRunError ? new RunNotReachableError(runId, values.store) : error;
              });
              const why = needsHost(machine, machines);
              if (why) throw new NoServerError(machine, values.store, why);
              return opened;
            } catch (error) {
              await opened.close();
              throw error;
            }
          };
          return serve({ version, run, target: { openRuntime } });
        }
        const sessionId = values.session ?? (process.env[SESSION_ID_ENV] || undefined);
        if (!sessionId) throw new SessionIdMissingError();
        if (!server) throw new ApprovalServerMissingError(values.store);
        return serve({ version, approvals: { sessionId }, target: { server, serverDir } });
      }),
    );
