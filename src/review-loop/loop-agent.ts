/**
 * The loop's `primary` and `reviewer` actors: the shared agent process actor
 * (src/actors/agent-process.ts), wrapped. The wrapper builds the agent's prompt from the bridge,
 * hands the process actor a run handle of its own and intercepts its reports:
 *
 * - agent.spawned and agent.session go on to the machine (it records the process and the session);
 * - agent.assistant and agent.result go to the transcript (the machine takes neither); a Codex
 *   result's thread total goes with it, so the next iteration, resuming the thread, is given it and
 *   reports only its own usage and cost (Codex counts the whole thread);
 * - agent.exited becomes the one event of `afterPrimary` / `afterReview`, sent with `ifAccepted`
 *   (a cancel may have moved the loop on), after the agent's output is on the bridge for the other.
 *
 * The process's raw stream is kept at a path fixed by run, role and iteration, with its pid file
 * beside it: a runner restarted after a crash invokes the same iteration's agent again, and the
 * process actor finds the recorded process there and adopts it (or, gone, reports what it wrote),
 * so an iteration never runs two agents.
 */
import { resolve } from 'node:path';
import { createActor, fromCallback, type AnyActorRef, type EventObject } from 'xstate';
import { agentUsageSchema, type AgentUsage } from '../../machines/agent-pricing.js';
import type { AgentInvocation, AgentRole, ReviewLoopEvent } from '../../machines/review-loop/index.js';
import type { ActorFactory, RunHandle, SendOptions } from '../actor-contract/run-handle.js';
import { afterPrimary, afterReview, type AgentReport } from './decide.js';
import { agentLogPath, type LoopRecord } from './loop-record.js';
import { agentPrompt } from './prompts.js';
import type { AgentSettings } from './settings.js';
import { parseReview } from './review.js';

export interface LoopAgentOptions {
  /** The loop's files, by run id (opened on first use: a restored run's actor may start first). */
  record(runId: string): Promise<LoopRecord>;
  /** The agent process actor to wrap. */
  agentProcess: ActorFactory;
  /** SIGTERM to SIGKILL, when an agent is stopped. */
  graceMs?: number;
}

type Reported = { type: string; [key: string]: unknown };

export function loopAgent(role: AgentRole, options: LoopAgentOptions): ActorFactory {
  return (run) =>
    fromCallback<EventObject, AgentInvocation>(({ input }) => {
      let stopped = false;
      let child: AnyActorRef | undefined;
      const fail = (error: unknown) => {
        if (stopped) return;
        const event: ReviewLoopEvent = {
          type: 'AGENT_ERROR',
          error: `${role} could not be run: ${error instanceof Error ? error.message : String(error)}`,
        };
        run.send(event, { actor: role, ifAccepted: true });
      };
      // Nothing is spawned before the step that entered this state is durable.
      run.afterCommit(() => {
        if (stopped) return;
        options
          .record(run.runId)
          .then((record) => {
            if (stopped) return;
            child = createActor(options.agentProcess(intercept(run, record, role, input)), {
              input: processInput(record, role, input, options.graceMs),
            });
            child.start();
          })
          .catch(fail);
      });
      return () => {
        stopped = true;
        child?.stop();
      };
    });
}

/**
 * The agent's command, continuing its session when it has one and says how: resume arguments are
 * appended (`--resume {session}`), or, when they name the command's own program, they are the whole
 * command (`codex exec --json resume {session}`).
 */
export function agentCommand(agent: AgentSettings, sessionId: string | undefined): string[] {
  if (!sessionId || !agent.resumeArgs) return agent.command;
  const resume = agent.resumeArgs.map((arg) => arg.replaceAll('{session}', sessionId));
  return resume[0] === agent.command[0] ? resume : [...agent.command, ...resume];
}

function processInput(record: LoopRecord, role: AgentRole, invocation: AgentInvocation, graceMs: number | undefined) {
  const settings = record.settings;
  const agent = settings[role];
  if (!agent) throw new Error(`the loop has no ${role} configured`);
  const { messages } = record.messages.pending(role);
  // A resumed Codex thread reports the whole thread's usage: the agent actor takes this off.
  const thread =
    invocation.sessionId === undefined
      ? undefined
      : record.threadUsageBefore(role, invocation.sessionId, invocation.iteration);
  return {
    command: agentCommand(agent, invocation.sessionId),
    cwd: resolve(record.manifest.repoPath ?? process.cwd(), agent.cwd ?? '.'),
    ...(agent.env && { env: agent.env }),
    prompt: agentPrompt(role, settings, invocation.iteration, messages),
    logPath: agentLogPath(record.runDir, role, invocation.iteration),
    ...(agent.pricing && { pricing: agent.pricing }),
    ...(thread && { threadUsage: thread }),
    ...(graceMs !== undefined && { graceMs }),
  };
}

/** The run handle the process actor reports to: relays what the machine takes, records the rest. */
function intercept(run: RunHandle, record: LoopRecord, role: AgentRole, invocation: AgentInvocation): RunHandle {
  const { iteration } = invocation;
  // Acknowledged once the agent has finished with them (at-least-once across a crash).
  const { cursor } = record.messages.pending(role);
  let result: AgentReport['result'];
  let assistants = 0;
  let finished = false;
  const command = agentCommand(record.settings[role]!, invocation.sessionId);
  return {
    runId: run.runId,
    machine: run.machine,
    clock: run.clock,
    log: run.log,
    // Already after the commit: the wrapper started the process actor from its own afterCommit.
    afterCommit: (effect) => effect(),
    // The wrapper stops the process actor from its own cleanup, within the step that stopped it.
    afterStop: run.afterStop,
    get handingOver() {
      return run.handingOver;
    },
    send: (event: Reported, sendOptions?: SendOptions) => {
      switch (event.type) {
        case 'agent.spawned':
          void record.note(
            { type: 'execution', agent: role, iteration, command, pid: event.pid as number },
            `execution:${role}:${iteration}:${event.pid}`,
          );
          run.send(event, sendOptions);
          return;
        case 'agent.session':
          run.send(event, sendOptions);
          return;
        case 'agent.assistant': {
          const usage = (event.usage ?? {}) as { input_tokens?: number; output_tokens?: number };
          void record.note(
            {
              type: 'assistant',
              agent: role,
              iteration,
              text: String(event.text ?? ''),
              ...(Number.isInteger(usage.input_tokens) && { inputTokens: usage.input_tokens }),
              ...(Number.isInteger(usage.output_tokens) && { outputTokens: usage.output_tokens }),
            },
            `assistant:${role}:${iteration}:${assistants++}`,
          );
          return;
        }
        case 'agent.result': {
          result = { text: String(event.result ?? ''), isError: event.isError === true };
          void record.note(
            {
              type: 'result',
              agent: role,
              iteration,
              output: result.text,
              isError: result.isError,
              ...(typeof event.costUsd === 'number' && event.costUsd >= 0 && { costUsd: event.costUsd }),
              ...(Number.isInteger(event.totalTokens) && { totalTokens: event.totalTokens as number }),
              ...(typeof event.sessionId === 'string' && { sessionId: event.sessionId }),
              ...(isUsage(event.threadUsage) && { threadUsage: event.threadUsage }),
            },
            `result:${role}:${iteration}`,
          );
          return;
        }
        case 'agent.exited': {
          if (finished) return;
          finished = true;
          const exit = {
            code: (event.code ?? null) as number | null,
            signal: (event.signal ?? null) as string | null,
            ...(typeof event.reason === 'string' && { reason: event.reason }),
          };
          void finish(run, record, role, invocation, { ...(result && { result }), exit }, cursor);
          return;
        }
        default:
          run.log('debug', `agent report ${event.type} not relayed`);
      }
    },
  };
}

function isUsage(value: unknown): value is AgentUsage {
  return agentUsageSchema.safeParse(value).success;
}

/** The agent is done: read its signal, leave its output for the other agent, then tell the machine. */
async function finish(
  run: RunHandle,
  record: LoopRecord,
  role: AgentRole,
  invocation: AgentInvocation,
  report: AgentReport,
  cursor: number,
): Promise<void> {
  const { iteration } = invocation;
  const settings = record.settings;
  const outcome =
    role === 'primary'
      ? afterPrimary(settings, report)
      : afterReview(settings, invocation.primaryVerdict ?? 'none', report);
  try {
    if (outcome.type === 'AGENT_ERROR') {
      await record.note({ type: 'error', error: outcome.error, agent: role, iteration });
    } else {
      const review = parseReview(report.result!.text, { doneSignal: settings.doneSignal });
      await record.note(
        {
          type: 'signal',
          agent: role,
          iteration,
          signal: review.signal?.kind ?? 'none',
          explicit: review.explicit,
          reason: review.reason,
        },
        `signal:${role}:${iteration}`,
      );
      // The primary's report goes to the reviewer, the review back to the primary; the ids make a re-send after a crash a no-op.
      const to = role === 'primary' ? 'reviewer' : 'primary';
      if (role === 'reviewer' || settings.reviewer) {
        await record.messages.send({
          id: `${role}-${iteration}`,
          from: role,
          to,
          type: role === 'primary' ? 'result' : 'review',
          content: report.result!.text,
          iteration,
        });
      }
    }
    await record.messages.ack(role, cursor);
  } catch (error) {
    run.log('error', `could not record the ${role}'s output: ${(error as Error).message}`);
  }
  const reason = outcome.type === 'AGENT_ERROR' ? outcome.error : `${role} finished iteration ${iteration}`;
  run.send(outcome, {
    actor: role,
    reason,
    idempotencyKey: `${run.runId}:${role}:${iteration}:outcome`,
    ifAccepted: true,
  });
}
