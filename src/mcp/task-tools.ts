/**
 * The ferrus task lifecycle's actions as MCP tools, for one agent (`--as role:vendor:index`): the
 * actions `statewright task` offers that agent's role, as ferrus's `ferrus-<role>-<index>` servers
 * register only their role's tools. Each call works on the project folder as the command does (its
 * store opened for the call, STATE.json written after it), through the task service: the roles,
 * leases and budgets are the machine's to enforce, and its refusal is the tool's error.
 *
 * Given a serve and a task role's credential (task-server.ts), every call goes through serve's API
 * instead, as that role on that task only (task-port.ts): serve hosts the run and runs its checks.
 */
import { z } from 'zod';
import { roleOf, type AgentId, type TaskRole } from '../../machines/task/agent.js';
import type { ServerTarget } from '../client/server-client.js';
import { refusalFor, type RoleTool } from './task-refusal.js';
import { inputSchemaOf, parseArguments, textResult, type McpTool, type ToolSet } from './mcp-tool.js';
import type { TaskNow, TaskPort } from './task-port.js';

const CHECK_PASSED = 'Active.Working.Checking.Passed';
const ASKED = 'Active.Consultation.Asked';
const ANSWERED = 'Active.Consultation.Answered';

interface TaskAction {
  readonly roles: readonly TaskRole[];
  readonly description: string;
  /** The machine's events it sends, by which a refusal names it among what the state accepts (none: always callable). */
  readonly events: readonly string[];
  /** The text the action takes, by name, if any. */
  readonly text?: { readonly name: string; readonly description: string };
  /** Whether the action runs the checks here, on the store (this process hosts the run while they run). */
  readonly runsChecks?: true;
  run(task: TaskPort, agent: AgentId, text: string): Promise<string>;
}

type EventOf = (text: string, agent: AgentId) => { type: string; [k: string]: unknown };

/** One event from the agent, after its claim where it has a seat (as the command does). */
const oneEvent =
  (eventOf: EventOf, claims: boolean) =>
  async (task: TaskPort, agent: AgentId, text: string): Promise<string> => {
    const event = eventOf(text, agent);
    await task.current(); // no task: refused before anything else
    if (claims) await task.claimIfSeated();
    return (await task.send(event, `${event.type} through statewright mcp`)).describe();
  };

/** Waits (heartbeating) up to `[limits] wait_timeout_secs` for the supervisor's response, then resumes with it. */
async function awaitResponse(task: TaskPort): Promise<string> {
  const seconds = task.waitTimeoutSecs;
  const answered = await task.holdingLease((signal) =>
    task.waitFor((now) => now.state !== ASKED, { timeoutMs: seconds * 1000, signal }),
  );
  if (!answered)
    return `No response from the supervisor within ${seconds}s: call resume to wait again.\n${(await task.current()).describe()}`;
  if (answered.state !== ANSWERED) return answered.describe();
  return resumeWithResponse(task, answered);
}

async function resumeWithResponse(task: TaskPort, answered: TaskNow): Promise<string> {
  const response = (answered.context as { consultResponse?: string }).consultResponse;
  const resumed = await task.send({ type: 'wait_for_consult' }, 'the response is in');
  return `response: ${response}\n${resumed.describe()}`;
}

const checked = (run: TaskNow) =>
  `${run.state === CHECK_PASSED ? 'The checks passed.' : 'The checks did not pass.'}\n${run.describe()}`;

const actions: Record<string, TaskAction> = {
  create: {
    roles: ['supervisor'],
    events: ['create_task'],
    description:
      'Creates the task for the executor (create_task); on the store, starts the project task run if there is none.',
    text: { name: 'task', description: 'what the executor is to do' },
    run: oneEvent((task) => ({ type: 'create_task', task }), false),
  },
  claim: {
    roles: ['supervisor', 'executor'],
    events: ['claim'],
    description:
      'Claims the task (its lease) where the role has a seat: the executor while it works, the supervisor in review.',
    run: oneEvent(() => ({ type: 'claim' }), false),
  },
  heartbeat: {
    roles: ['supervisor', 'executor'],
    events: ['heartbeat'],
    description: "Renews the agent's lease on the task.",
    run: oneEvent(() => ({ type: 'heartbeat' }), false),
  },
  check: {
    roles: ['executor'],
    events: ['check'],
    description:
      "Runs the check commands of ferrus.toml and waits for their result (retries count against the task's budget).",
    runsChecks: true,
    run: async (task) => checked(await task.check()),
  },
  consult: {
    roles: ['executor'],
    events: ['consult'],
    description: 'Asks the supervisor a question and waits (up to [limits] wait_timeout_secs) for the response.',
    text: { name: 'question', description: 'the question for the supervisor' },
    async run(task, _agent, question) {
      await task.current();
      await task.claimIfSeated();
      await task.send({ type: 'consult', question }, 'consult through statewright mcp');
      return awaitResponse(task);
    },
  },
  submit: {
    roles: ['executor'],
    events: ['submit'],
    description: 'Submits the checked work for review.',
    text: { name: 'summary', description: 'what was done' },
    run: oneEvent((summary) => ({ type: 'submit', summary }), true),
  },
  ask: {
    roles: ['supervisor', 'executor'],
    events: ['ask_human'],
    description: 'Asks a person a question (ask_human); the task waits for the answer.',
    text: { name: 'question', description: 'the question for a person' },
    run: oneEvent((question) => ({ type: 'ask_human', question }), true),
  },
  answer: {
    roles: ['supervisor', 'human'],
    events: ['respond_consult', 'answer'],
    description:
      "The supervisor's response to a consultation (respond_consult), or a person's answer to a question (answer).",
    text: { name: 'answer', description: 'the response or answer' },
    run: oneEvent(
      (text, agent) =>
        roleOf(agent) === 'supervisor' ? { type: 'respond_consult', response: text } : { type: 'answer', answer: text },
      false,
    ),
  },
  approve: {
    roles: ['supervisor'],
    events: ['approve'],
    description: 'Approves the submission: the task is complete.',
    run: oneEvent(() => ({ type: 'approve' }), true),
  },
  reject: {
    roles: ['supervisor'],
    events: ['reject'],
    description: 'Rejects the submission with notes (review cycles count against the budget).',
    text: { name: 'notes', description: 'what must change' },
    run: oneEvent((notes) => ({ type: 'reject', notes }), true),
  },
  reset: {
    roles: ['supervisor', 'human'],
    events: ['reset'],
    description: 'Clears a failed task.',
    run: oneEvent(() => ({ type: 'reset' }), false),
  },
  resume: {
    roles: ['executor'],
    events: ['wait_for_consult', 'claim'],
    description:
      'Continues from where the task is: waits for (or takes) a consultation response, runs again a check cut off by a dead process, else claims and shows the task.',
    runsChecks: true,
    async run(task) {
      const now = await task.current();
      if (now.state === ASKED) {
        await task.claimIfSeated();
        return awaitResponse(task);
      }
      if (now.state === ANSWERED) {
        await task.claimIfSeated();
        return resumeWithResponse(task, now);
      }
      const last = await task.lastEvent();
      if (last?.type === 'check_failed' && last.interrupted) return checked(await task.check());
      await task.claimIfSeated();
      return (await task.current()).describe();
    },
  },
  status: {
    roles: ['supervisor', 'executor', 'human'],
    events: [],
    description: 'Shows the task: its state, text, lease, budgets and what the agents need next.',
    run: async (task) => (await task.current()).describe(),
  },
};

/** The tools of `agent`'s role on the task project `dir`: on its store, or through `server` (with a role credential). */
export function taskTools(dir: string, agent: AgentId, server?: ServerTarget): ToolSet {
  const role = roleOf(agent)!;
  const offered = Object.entries(actions).filter(([, action]) => action.roles.includes(role));
  const roleTools: RoleTool[] = offered.map(([name, { events }]) => ({ name, events }));
  // The task session, the store and the runtime are loaded by the first call, not before
  // `initialize` is answered: an agent waits for that only so long (bench/mcp-startup.bench.ts).
  const runAction = async (name: string, action: TaskAction, text: string): Promise<string> => {
    const [{ withTaskSession }, { readTaskSettings }, { taskPaths }, { serverPort, storePort }, { taskServerAccess }] =
      await Promise.all([
        import('../client/task-session.js'),
        import('../task/limits.js'),
        import('../task/task-service.js'),
        import('./task-port.js'),
        import('./task-server.js'),
      ]);
    const api = server && taskServerAccess(server);
    if (api) {
      // ferrus.toml read for each call, as the store's session reads it: its wait and heartbeat timing.
      const settings = await readTaskSettings(taskPaths(dir).settings);
      return action.run(serverPort(api, agent, settings), agent, text);
    }
    const runsChecks = action.runsChecks === true;
    return withTaskSession(dir, { runsChecks, recover: runsChecks }, async (session) => {
      // Only the supervisor's create starts the project's run (on the store; through serve a person does).
      if (name === 'create') await session.ensureRun();
      return action.run(storePort(session, agent), agent, text);
    });
  };
  const tools: McpTool[] = offered.map(([name, action]) => {
    const schema = z.strictObject(
      action.text ? { [action.text.name]: z.string().trim().min(1).describe(action.text.description) } : {},
    );
    return {
      name,
      description: `${action.description} (as ${agent})`,
      inputSchema: inputSchemaOf(schema),
      async call(args) {
        const parsed = parseArguments(name, schema, args) as Record<string, string>;
        const text = action.text ? parsed[action.text.name]! : '';
        try {
          return textResult(await runAction(name, action, text));
        } catch (error) {
          throw refusalFor(error, role, roleTools, dir);
        }
      },
    };
  });
  return { tools: async () => tools, close: async () => {} };
}
