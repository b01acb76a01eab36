/**
 * What only the session lifecycle knows of why a session is where it is (`Lifecycle.explain`):
 * its agent process, the tool calls waiting for a person, with the events that approve or deny
 * them, and a verdict in the seed's terms (a Claude retrying its model calls is said to be);
 * and the note `statewright status` shows beside a session whose Claude is retrying.
 */
import type { ExplainingRun, LifecycleExplanation, PendingDecision } from '../lifecycle.js';
import type { SessionApproval, SessionContext } from './context.js';
import { nextApprovalDeadline } from './updates.js';
import { retryNote, retryStatusNote } from '../agent-retry.js';

const iso = (ms: number) => new Date(ms).toISOString();

const decision = (approval: SessionApproval): PendingDecision => ({
  kind: 'approval',
  id: approval.approval_id,
  summary: `${approval.tool_name} wants approval`,
  detail: JSON.stringify(approval.tool_input),
  approve: { type: 'APPROVAL_RESOLVED', approval_id: approval.approval_id, decision: 'approved' },
  deny: { type: 'APPROVAL_RESOLVED', approval_id: approval.approval_id, decision: 'denied' },
});

export function explainSession(run: ExplainingRun): LifecycleExplanation {
  const context = run.snapshot.context as SessionContext;
  const agent = context.agent && {
    pid: context.agent.pid,
    pidStart: context.agent.pid_start,
    logPath: context.agent.log_path,
  };
  const pending = context.approvals.filter((a) => a.status === 'pending');
  const base = { ...(agent && { agent }), ...(pending.length > 0 && { waitingFor: pending.map(decision) }) };
  switch (run.state) {
    case 'starting':
      return {
        ...base,
        verdict: `waiting for the agent to report its session id (agent.session); START_TIMEOUT fails it at ${iso(context.start_deadline)}`,
      };
    case 'running':
    case 'waiting_input':
      if (context.interrupt_requested)
        return {
          ...base,
          verdict: `${interruptedHow(context, context.interrupt_requested)}; its exit (agent.exited) fails the session ('${context.interrupt_requested.message}')${
            context.interrupt_requested.grace_until === undefined
              ? ''
              : `, or the grace's end (INTERRUPT from the timer) at ${iso(context.interrupt_requested.grace_until)}`
          }; another INTERRUPT fails it at once`,
        };
      if (run.state === 'waiting_input') return waitingForPerson(base, context, pending);
      return {
        ...base,
        verdict: `${
          context.retrying
            ? `Claude is ${retryNote(context.retrying)}: its model calls fail and it tries again; waiting for it`
            : 'waiting for the agent'
        }: its exit (agent.exited) ends the session, a tool call needing approval (APPROVAL_REQUESTED) stops it for a person; a person may INTERRUPT`,
      };
    case 'failed':
      // Why it ended, in the record's words (a timed-out approval names its tool call).
      return { ...base, verdict: `failed: ${failedReason(context)}` };
    default:
      return base;
  }
}

/** How the session's end was asked for: a person's interrupt (SIGINT) or an approval's timeout (a deny). */
function interruptedHow(context: SessionContext, asked: NonNullable<SessionContext['interrupt_requested']>): string {
  const timedOut = asked.approval_id && context.approvals.find((a) => a.approval_id === asked.approval_id);
  return timedOut
    ? `${toolCallWords(timedOut)} was not decided within approval_timeout_ms (${context.config.approval_timeout_ms} ms) at ${iso(asked.at)}: Claude got a deny`
    : `interrupted at ${iso(asked.at)}: the agent got SIGINT`;
}

function failedReason(context: SessionContext): string {
  const expired = context.approvals.find((a) => a.status === 'expired');
  const why = context.error_message ?? 'no reason recorded';
  return expired
    ? `${why} (${toolCallWords(expired)} was not decided within approval_timeout_ms, ${context.config.approval_timeout_ms} ms)`
    : why;
}

/** The tool_input fields that say what a call does, by the first one it has: Bash's command, a file's path, a URL... */
const WHAT_IT_DOES = ['command', 'file_path', 'notebook_path', 'path', 'url', 'pattern', 'query', 'description'];
const MAX_WORDS = 80;

/**
 * A tool call as a person knows it: the tool and what it does (`Bash 'npm test'`, `Edit 'src/a.ts'`),
 * cut to a line; by its approval id only when its input says nothing of the kind.
 */
export function toolCallWords(approval: Pick<SessionApproval, 'tool_name' | 'tool_input' | 'approval_id'>): string {
  const field = WHAT_IT_DOES.find(
    (key) => typeof approval.tool_input[key] === 'string' && approval.tool_input[key] !== '',
  );
  const what =
    field === undefined ? approval.approval_id : (approval.tool_input[field] as string).replace(/\s+/g, ' ').trim();
  return `${approval.tool_name} '${what.length > MAX_WORDS ? `${what.slice(0, MAX_WORDS - 1)}…` : what}'`;
}

function waitingForPerson(
  base: LifecycleExplanation,
  context: SessionContext,
  pending: readonly SessionApproval[],
): LifecycleExplanation {
  const due = nextApprovalDeadline(context);
  const calls = pending.map(toolCallWords).join(', ');
  const timeout = due ? `; APPROVAL_TIMEOUT fails it at ${iso(due.deadline)}` : '; no approval times out';
  return { ...base, verdict: `waiting for a person to approve or deny ${calls} (APPROVAL_RESOLVED)${timeout}` };
}

/** `Lifecycle.statusNote`: "retrying 3/10 (HTTP 529)" while Claude retries a model call (explain says more). */
export function sessionStatusNote(run: ExplainingRun): string | undefined {
  const context = run.snapshot.context as SessionContext;
  return run.state === 'running' && context.retrying ? retryStatusNote(context.retrying) : undefined;
}
