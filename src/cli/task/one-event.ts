/** The actions that are one event each: the agent's claim where it has a seat, then the event. */
import type { TaskEvent } from '../../../machines/index.js';
import { claimIfSeated, describeTask } from '../../client/task-session.js';
import { requireAgent, requireText, withSession, type TaskArgs } from './options.js';

interface OneEvent {
  readonly summary: string;
  /** The text argument this action needs, if any. */
  readonly text?: string;
  readonly example: string;
  readonly event: (text: string) => TaskEvent;
  /** Claims first (the actions of an agent at work); claim and heartbeat are the lease itself. */
  readonly claims: boolean;
}

export const oneEventActions: Record<string, OneEvent> = {
  submit: {
    summary: 'the executor submits checked work for review',
    text: 'summary',
    example: 'executor:codex:1',
    event: (summary) => ({ type: 'submit', summary }),
    claims: true,
  },
  approve: {
    summary: 'the supervisor approves the submission',
    example: 'supervisor:claude:1',
    event: () => ({ type: 'approve' }),
    claims: true,
  },
  reject: {
    summary: 'the supervisor rejects it with notes',
    text: 'notes',
    example: 'supervisor:claude:1',
    event: (notes) => ({ type: 'reject', notes }),
    claims: true,
  },
  reset: {
    summary: 'clears a failed task (supervisor or human)',
    example: 'supervisor:claude:1',
    event: () => ({ type: 'reset' }),
    claims: false,
  },
  ask: {
    summary: 'asks a person a question (ask_human)',
    text: 'question',
    example: 'executor:codex:1',
    event: (question) => ({ type: 'ask_human', question }),
    claims: true,
  },
  claim: {
    summary: 'claims the task for the agent (lease)',
    example: 'executor:codex:1',
    event: () => ({ type: 'claim' }),
    claims: false,
  },
  heartbeat: {
    summary: "renews the agent's lease",
    example: 'executor:codex:1',
    event: () => ({ type: 'heartbeat' }),
    claims: false,
  },
};

export async function runOneEvent(action: string, spec: OneEvent, args: TaskArgs): Promise<number> {
  const agent = requireAgent(args, action, spec.example);
  const text = spec.text ? requireText(args, action, spec.text) : '';
  const run = await withSession(args, {}, async (session) => {
    await session.current(); // NoTaskError before anything else
    if (spec.claims) await claimIfSeated(session, agent);
    return session.send(agent, spec.event(text), `task ${action} on the command line`);
  });
  process.stdout.write(describeTask(run));
  return 0;
}
