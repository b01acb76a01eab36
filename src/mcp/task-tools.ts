/**
 * The ferrus task lifecycle's actions as MCP tools, for one agent (`--as role:vendor:index`): the
 * actions `statewright task` offers that agent's role, as ferrus's `ferrus-<role>-<index>` servers
 * register only their role's tools. Each call works on the project folder as the command does (its
 * store opened for the call, STATE.json written after it), through the task service: the roles,
 * leases and budgets are the machine's to enforce, and its refusal is the tool's error.
 */
import { z } from 'zod';
import { roleOf, type AgentId, type TaskRole } from '../../machines/index.js';
import { claimIfSeated, describeTask, runCheck, withTaskSession } from '../client/task-session.js';
import type { RunSnapshot } from '../runtime/run-snapshot.js';
import { TASK_RUN_ID, type TaskSession } from '../task/task-service.js';
import { inputSchemaOf, parseArguments, textResult, type McpTool, type ToolSet } from './mcp-tool.js';

const CHECK_PASSED = 'Active.Working.Checking.Passed';
const ASKED = 'Active.Consultation.Asked';
const ANSWERED = 'Active.Consultation.Answered';

interface TaskAction {
  readonly roles: readonly TaskRole[];
  readonly description: string;
  /** The text the action takes, by name, if any. */
  readonly text?: { readonly name: string; readonly description: string };
  /** Whether the action runs the checks here (this process hosts the run while they run). */
  readonly runsChecks?: true;
  run(session: TaskSession, agent: AgentId, text: string): Promise<string>;
}

/** One event from the agent, after its claim where it has a seat (as the command does). */
const oneEvent =
  (eventOf: (text: string) => { type: string; [k: string]: unknown }, claims: boolean) =>
  async (session: TaskSession, agent: AgentId, text: string) => {
    const event = eventOf(text);
    await session.current(); // NoTaskError before anything else
    if (claims) await claimIfSeated(session, agent);
    return describeTask(await session.send(agent, event as never, `${event.type} through statewright mcp`));
  };

/** Waits (heartbeating) up to `[limits] wait_timeout_secs` for the supervisor's response, then resumes with it. */
async function awaitResponse(session: TaskSession, agent: AgentId): Promise<string> {
  const seconds = session.settings.limits.waitTimeoutSecs;
  const answered = await session.holdingLease(agent, (signal) =>
    session.waitFor((task) => task.state !== ASKED, { timeoutMs: seconds * 1000, signal }),
  );
  if (!answered)
    return `No response from the supervisor within ${seconds}s: call resume to wait again.\n${describeTask(await session.current())}`;
  if (answered.state !== ANSWERED) return describeTask(answered);
  return resumeWithResponse(session, agent, answered);
}

async function resumeWithResponse(session: TaskSession, agent: AgentId, answered: RunSnapshot): Promise<string> {
  const response = (answered.context as { consultResponse?: string }).consultResponse;
  const resumed = await session.send(agent, { type: 'wait_for_consult' }, 'the response is in');
  return `response: ${response}\n${describeTask(resumed)}`;
}

const checked = (run: RunSnapshot) =>
  `${run.state === CHECK_PASSED ? 'The checks passed.' : 'The checks did not pass.'}\n${describeTask(run)}`;

const actions: Record<string, TaskAction> = {
  create: {
    roles: ['supervisor'],
    description: 'Creates the task for the executor (create_task); starts the project task run if there is none.',
    text: { name: 'task', description: 'what the executor is to do' },
    async run(session, agent, task) {
      await session.ensureRun();
      return describeTask(
        await session.send(agent, { type: 'create_task', task }, 'create_task through statewright mcp'),
      );
    },
  },
  claim: {
    roles: ['supervisor', 'executor'],
    description:
      'Claims the task (its lease) where the role has a seat: the executor while it works, the supervisor in review.',
    run: oneEvent(() => ({ type: 'claim' }), false),
  },
  heartbeat: {
    roles: ['supervisor', 'executor'],
    description: "Renews the agent's lease on the task.",
    run: oneEvent(() => ({ type: 'heartbeat' }), false),
  },
  check: {
    roles: ['executor'],
    description:
      "Runs the check commands of ferrus.toml and waits for their result (retries count against the task's budget).",
    runsChecks: true,
    run: async (session, agent) => checked(await runCheck(session, agent)),
  },
  consult: {
    roles: ['executor'],
    description: 'Asks the supervisor a question and waits (up to [limits] wait_timeout_secs) for the response.',
    text: { name: 'question', description: 'the question for the supervisor' },
    async run(session, agent, question) {
      await session.current();
      await claimIfSeated(session, agent);
      await session.send(agent, { type: 'consult', question }, 'consult through statewright mcp');
      return awaitResponse(session, agent);
    },
  },
  submit: {
    roles: ['executor'],
    description: 'Submits the checked work for review.',
    text: { name: 'summary', description: 'what was done' },
    run: oneEvent((summary) => ({ type: 'submit', summary }), true),
  },
  ask: {
    roles: ['supervisor', 'executor'],
    description: 'Asks a person a question (ask_human); the task waits for the answer.',
    text: { name: 'question', description: 'the question for a person' },
    run: oneEvent((question) => ({ type: 'ask_human', question }), true),
  },
  answer: {
    roles: ['supervisor', 'human'],
    description:
      "The supervisor's response to a consultation (respond_consult), or a person's answer to a question (answer).",
    text: { name: 'answer', description: 'the response or answer' },
    run: (session, agent, text) =>
      oneEvent(
        () =>
          roleOf(agent) === 'supervisor'
            ? { type: 'respond_consult', response: text }
            : { type: 'answer', answer: text },
        false,
      )(session, agent, text),
  },
  approve: {
    roles: ['supervisor'],
    description: 'Approves the submission: the task is complete.',
    run: oneEvent(() => ({ type: 'approve' }), true),
  },
  reject: {
    roles: ['supervisor'],
    description: 'Rejects the submission with notes (review cycles count against the budget).',
    text: { name: 'notes', description: 'what must change' },
    run: oneEvent((notes) => ({ type: 'reject', notes }), true),
  },
  reset: {
    roles: ['supervisor', 'human'],
    description: 'Clears a failed task.',
    run: oneEvent(() => ({ type: 'reset' }), false),
  },
  resume: {
    roles: ['executor'],
    description:
      'Continues from where the task is: waits for (or takes) a consultation response, runs again a check cut off by a dead process, else claims and shows the task.',
    runsChecks: true,
    async run(session, agent) {
      const task = await session.current();
      if (task.state === ASKED) {
        await claimIfSeated(session, agent);
        return awaitResponse(session, agent);
      }
      if (task.state === ANSWERED) {
        await claimIfSeated(session, agent);
        return resumeWithResponse(session, agent, task);
      }
      const last = (await session.runtime.history(TASK_RUN_ID)).at(-1)?.event as
        | { type: string; interrupted?: boolean }
        | undefined;
      if (last?.type === 'check_failed' && last.interrupted) return checked(await runCheck(session, agent));
      await claimIfSeated(session, agent);
      return describeTask(await session.current());
    },
  },
  status: {
    roles: ['supervisor', 'executor', 'human'],
    description: 'Shows the task: its state, text, lease, budgets and what the agents need next.',
    run: async (session) => describeTask(await session.current()),
  },
};

/** The tools of `agent`'s role on the task project `dir`. */
export function taskTools(dir: string, agent: AgentId): ToolSet {
  const role = roleOf(agent)!;
  const tools: McpTool[] = Object.entries(actions)
    .filter(([, action]) => action.roles.includes(role))
    .map(([name, action]) => {
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
          const runsChecks = action.runsChecks === true;
          return textResult(
            await withTaskSession(dir, { runsChecks, recover: runsChecks }, (session) =>
              action.run(session, agent, text),
            ),
          );
        },
      };
    });
  return { tools: async () => tools, close: async () => {} };
}
