/**
 * A ferrus task from create_task to Complete, driven by real agents through `statewright mcp`, as
 * ferrus's agents change their task through MCP tools: a real Claude supervisor (`--mcp-config`,
 * `statewright mcp --task <dir> --as supervisor:claude:1`) and a real Codex executor (its MCP
 * server `--as executor:codex:1`, its shell tool writing the file in a workspace-write sandbox),
 * each told by the scripted model server which tools to call. The machine enforces the roles and the
 * order: a submit before the checks passed is refused, and the refusal reaches the model as the
 * tool's error. Every agent is a real process, run one after the other as a supervisor would.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, expect, test } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';
import { ModelServer, type ModelRequest, type Reply } from './model-server/model-server.js';
import {
  assertRealAgentsInstalled,
  CLAUDE_BIN,
  claudeEnv,
  claudeMcpArgs,
  codexCommand,
  codexEnv,
  codexMcpArgs,
  type McpServerCommand,
} from './real-agents.js';

const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));
const servers: ModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
beforeAll(assertRealAgentsInstalled);

const taskMcp = (dir: string, agent: string): McpServerCommand => ({
  command: process.execPath,
  args: [bin, 'mcp', '--task', dir, '--as', agent],
});

/** The texts of the last request an API received: what the agent sent back after its last tool call. */
const lastTexts = (server: ModelServer, api: ModelRequest['api']) =>
  server.requests
    .filter((request) => request.api === api)
    .at(-1)
    ?.texts.join('\n') ?? '';

interface Turn {
  readonly exitCode: number | undefined;
  readonly stdout: string;
}

/** One turn of the real Claude supervisor: the tools it may call are the task server's. */
async function supervisorTurn(server: ModelServer, dir: string, home: string, prompt: string): Promise<Turn> {
  const args = [
    '-p',
    '--output-format',
    'stream-json',
    '--verbose',
    ...claudeMcpArgs('statewright', taskMcp(dir, 'supervisor:claude:1')),
    '--strict-mcp-config',
    '--allowedTools',
    'mcp__statewright__create,mcp__statewright__approve,mcp__statewright__reject,mcp__statewright__status',
  ];
  const { exitCode, stdout } = await startCommand(CLAUDE_BIN, args, {
    input: prompt,
    cwd: dir,
    env: claudeEnv(server, { home }),
    reject: false,
  });
  return { exitCode, stdout };
}

/** One turn of the real Codex executor, in a sandbox that may write the project folder. */
async function executorTurn(server: ModelServer, dir: string, home: string, prompt: string): Promise<Turn> {
  const [command, ...args] = codexCommand(server, {
    home,
    args: ['-s', 'workspace-write', ...codexMcpArgs('statewright', taskMcp(dir, 'executor:codex:1'))],
  });
  const { exitCode, stdout } = await startCommand(command!, args, {
    input: prompt,
    cwd: dir,
    env: codexEnv({ home }),
    reject: false,
  });
  return { exitCode, stdout };
}

const claudeSays = (reply: Reply): Reply => ({ ...reply, when: (request) => request.api === 'messages' });
const codexSays = (reply: Reply): Reply => ({ ...reply, when: (request) => request.api === 'responses' });

function taskState(dir: string): { state: string; [key: string]: unknown } {
  return JSON.parse(readFileSync(join(dir, 'STATE.json'), 'utf8'));
}

test('a Claude supervisor and a Codex executor take a task to Complete through statewright mcp', async () => {
  const dir = testDir('ferrus-real');
  const claudeHome = testDir('ferrus-claude');
  const codexHome = testDir('ferrus-codex');
  writeFileSync(join(dir, 'ferrus.toml'), '[checks]\ncommands = ["grep -q \'^# Release\' NOTES.md"]\n');
  const server = await ModelServer.start();
  servers.push(server);

  // The supervisor creates the task.
  server.script(
    claudeSays({ blocks: [{ tool: 'mcp__statewright__create', input: { task: 'Write NOTES.md, headed # Release' } }] }),
    claudeSays({ blocks: [{ text: 'Task created.' }] }),
  );
  expect((await supervisorTurn(server, dir, claudeHome, 'Hand out the release notes task.')).exitCode).toBe(0);
  expect(lastTexts(server, 'messages')).toContain('Write NOTES.md, headed # Release');
  expect(taskState(dir).state).toBe('Executing');

  // The executor submits too early (refused by the machine, as the tool's error), runs the checks
  // (they fail: no file), writes the file with its shell tool, checks again (pass) and submits.
  server.script(
    codexSays({ blocks: [{ tool: 'mcp__statewright__submit', input: { summary: 'nothing yet' } }] }),
    codexSays({ blocks: [{ tool: 'mcp__statewright__check', input: {} }] }),
    codexSays({
      blocks: [{ tool: 'exec_command', input: { cmd: "printf '# Release\\n\\nFaster starts.\\n' > NOTES.md" } }],
    }),
    codexSays({ blocks: [{ tool: 'mcp__statewright__check', input: {} }] }),
    codexSays({ blocks: [{ tool: 'mcp__statewright__submit', input: { summary: 'Wrote NOTES.md' } }] }),
    codexSays({ blocks: [{ text: 'Submitted for review.' }] }),
  );
  const before = server.requests.length;
  expect((await executorTurn(server, dir, codexHome, 'Do the task you are given.')).exitCode).toBe(0);
  // What each call sent back last: the result of the tool the reply before it called.
  const executorCalls = server.requests.slice(before).map((request) => request.texts.at(-1) ?? '');
  expect(executorCalls).toHaveLength(6);
  // The early submit's refusal, in the machine's words, went back to the model.
  expect(executorCalls[1]).toContain("InvalidTransitionError: Invalid transition: cannot apply event 'submit'");
  // ... with what the executor can call now, by its tools (no supervisor's tool, no machine event).
  expect(executorCalls[1]).toMatch(/As executor you can call now: [^\n]*\bcheck\b/);
  for (const notItsTool of ['approve', 'respond_consult', 'lease_expired'])
    expect(executorCalls[1]).not.toContain(notItsTool);
  expect(executorCalls[2]).toContain('The checks did not pass.');
  expect(executorCalls[4]).toContain('The checks passed.');
  expect(executorCalls[5]).toContain('task is Reviewing');
  expect(readFileSync(join(dir, 'NOTES.md'), 'utf8')).toContain('# Release');

  // The supervisor rejects with notes; a second Codex turn addresses them and submits again.
  server.script(
    claudeSays({ blocks: [{ tool: 'mcp__statewright__reject', input: { notes: 'Name the version.' } }] }),
    claudeSays({ blocks: [{ text: 'Sent back.' }] }),
  );
  expect((await supervisorTurn(server, dir, claudeHome, 'Review the submission.')).exitCode).toBe(0);
  expect(lastTexts(server, 'messages')).toContain('Name the version.');
  server.script(
    codexSays({ blocks: [{ tool: 'exec_command', input: { cmd: "printf '# Release 1.1\\n' > NOTES.md" } }] }),
    codexSays({ blocks: [{ tool: 'mcp__statewright__check', input: {} }] }),
    codexSays({ blocks: [{ tool: 'mcp__statewright__submit', input: { summary: 'Named the version' } }] }),
    codexSays({ blocks: [{ text: 'Submitted again.' }] }),
  );
  expect((await executorTurn(server, dir, codexHome, 'The review sent the task back: address it.')).exitCode).toBe(0);
  expect(lastTexts(server, 'responses')).toContain('review cycles 1/3');
  expect(readFileSync(join(dir, 'NOTES.md'), 'utf8')).toBe('# Release 1.1\n');

  // The supervisor approves: the task is Complete.
  server.script(
    claudeSays({ blocks: [{ tool: 'mcp__statewright__approve', input: {} }] }),
    claudeSays({ blocks: [{ text: 'Approved.' }] }),
  );
  expect((await supervisorTurn(server, dir, claudeHome, 'Review the submission.')).exitCode).toBe(0);
  expect(taskState(dir).state).toBe('Complete');
  server.assertAllAnswered();
  expect(server.unusedReplies).toBe(0);

  // The audit trail names who did what: each agent through its own MCP server.
  const history = await startCommand(
    process.execPath,
    [bin, 'history', 'task', '--json', '--store', `sqlite:${join(dir, '.statewright', 'state.db')}`],
    {
      reject: false,
    },
  );
  const events = history.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { event: { type: string }; actor?: string });
  const byType = (type: string) => events.filter((entry) => entry.event.type === type).map((entry) => entry.actor);
  expect(byType('create_task')).toEqual(['supervisor:claude:1']);
  expect(byType('submit')).toEqual(['executor:codex:1', 'executor:codex:1']);
  expect(byType('reject')).toEqual(['supervisor:claude:1']);
  expect(byType('approve')).toEqual(['supervisor:claude:1']);
});
