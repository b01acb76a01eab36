/**
 * The agent process actor, shared by every lifecycle that runs a Claude Code style agent.
 *
 * It starts the command with execa in its own process group (`detached`), writes the prompt to
 * stdin, and reports what the agent does as events through `run.send`:
 *   agent.spawned   {pid, pidStart, logPath}
 *   agent.session   {sessionId}                            (stream-json system/init, Codex thread.started)
 *   agent.assistant {messageId, usage, text}               (each assistant message, once per id)
 *   agent.result    {costUsd, totalTokens, usage, result, isError, sessionId}   (the first result)
 *   agent.retrying  {attempt, maxRetries, errorStatus, error, retryDelayMs}      (Claude's system/api_retry)
 * The output is read by `AgentOutputReader` (agent-output.ts): Claude Code's stream-json or
 * Codex's exec JSON, one message per id, the first result deciding.
 *   agent.exited    {code, signal, reason}
 * On stop (the actor's cleanup) it stops reporting at once, and ends the agent's whole process tree
 * once the step that stopped it is committed (`run.afterStop`): SIGTERM, then SIGKILL after
 * `graceMs` to what is left (its group, and what left the group: see os/process-tree.ts). A step that
 * is rolled back, or that the host died before committing, never signalled the agent, and the
 * restored actor adopts it. It also takes `{ type: 'agent.stop' }`: the same termination once its
 * step is committed, but it keeps reporting until the process has exited, so the machine learns
 * how it ended; and `{ type: 'agent.signal', signal }`, which sends `signal` to the group once the
 * step that asked for it is committed (a session's interrupt is SIGINT). A stop right after a
 * signal gives the agent `graceMs` to act on it before SIGTERM. When the agent exits, what it left
 * running is ended the same way, also by a supervisor that has handed the agent over (nobody adopts
 * an exited agent's descendants) and by one that finds the recorded agent gone after a restart: the
 * agent's environment carries a cookie, recorded in `logPath.pid`, by which they are found.
 *
 * Nothing starts before the step that invoked the actor is durable: the process is spawned (or
 * adopted) in `run.afterCommit`, so a run restored only to be failed by its recovery hook never
 * spawns, and a start that is rolled back leaves no process behind.
 *
 * The agent's stdout and stderr go straight to files (`logPath`, `logPath.stderr`), not through
 * pipes to this process, and its pid, start time and log offset go to `logPath.pid`. So an agent
 * survives a crash of the runtime, and a restarted actor finds it: if the recorded process (same pid
 * and start time) is alive it is adopted, never spawned again; if it is gone, whatever it wrote
 * meanwhile is reported and then `agent.exited` with reason "process gone before restart". Every
 * report carries an idempotency key made of the pid, start time and the line's byte offset, so a
 * line reported before the crash is not applied twice. Every report is sent with `ifAccepted`: once
 * the machine has moved on, late news from the agent is dropped, not treated as an error. Lines it
 * cannot use are warned about in the log, the first few one by one and the rest as a count
 * (limited-warnings.ts).
 *
 * When the runtime puts a run back to its last commit (a commit failed, or the machine threw), it
 * replaces the actor with one restored from that commit (`run.handingOver`): the old supervisor lets
 * go of the agent without signalling it, and the new one adopts it (within this process, with its
 * exit status). A host that loses the run to another host (its lease taken, or found stale) lets go
 * the same way: the new holder's restored actor adopts the agent, or ends it if its recovery ended
 * the run.
 *
 * Nothing starts before the step that started the actor is committed (`run.afterCommit`). An actor
 * restored with a run and stopped before then (its recovery ended the codon: "Server crashed")
 * spawns nothing, and ends the agent recorded on disk if that one still runs: nobody supervises it.
 */
import { fromCallback, type EventObject } from 'xstate';
import type { AgentInput } from '../../machines/agent-input.js';
import type { ActorFactory, RunHandle } from '../actor-contract/run-handle.js';
import { AgentSupervisor } from './agent-supervisor.js';

export type { AgentReport } from './agent-supervisor.js';

/** The actor's input, declared with the machines that build it (machines/ never imports src/actors). */
export type AgentProcessInput = AgentInput;

export interface AgentProcessOptions {
  /** How often the log is read and an adopted process's liveness checked, besides file-change notices. */
  pollMs?: number;
  /**
   * More environment for the agent of each run, beside its input's: what the host knows and the
   * machine does not (the run's id, a secret that must stay out of the stored snapshot).
   */
  env?: (run: RunHandle) => Record<string, string>;
}

export const AGENT_STOP_EVENT = 'agent.stop';
export const AGENT_SIGNAL_EVENT = 'agent.signal';

export function createAgentProcess(options: AgentProcessOptions = {}): ActorFactory {
  const pollMs = options.pollMs ?? 200;
  return (run) =>
    fromCallback<EventObject, AgentProcessInput>(({ input, receive }) => {
      const agent = new AgentSupervisor(
        run,
        options.env ? { ...input, env: { ...input.env, ...options.env(run) } } : input,
        pollMs,
      );
      receive((event) => {
        if (event.type === AGENT_STOP_EVENT) run.afterCommit(() => agent.terminate('stop requested'));
        if (event.type === AGENT_SIGNAL_EVENT) agent.signal((event as { signal?: unknown }).signal);
      });
      // Nothing is spawned until the step that entered the state is durable; a restored run whose
      // recovery ends the codon stops this actor before then, and nothing is spawned at all.
      run.afterCommit(() => agent.start());
      // Replaced by an actor restored from the last commit: let the agent run on, to be adopted.
      return () => {
        if (run.handingOver) return agent.detach();
        const startedBefore = agent.stop();
        // Ended once the step that stopped it is durable; if that step is undone, the restored actor adopts the agent.
        run.afterStop(() => (run.handingOver ? agent.detach() : agent.end(startedBefore)));
      };
    });
}

/** The actor with the default polling interval. */
export const agentProcess: ActorFactory = createAgentProcess();
