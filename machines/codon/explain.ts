/**
 * What only the codon lifecycle knows of why a codon is where it is (`Lifecycle.explain`): the
 * agent process its record names, once spawned, and an agent retrying its model calls (Claude's
 * `system/api_retry`), which is no agent at work, also the note `statewright status` shows beside
 * the codon. Otherwise the generic verdict (its actors and timers) holds.
 */
import { retryNote, retryStatusNote } from '../agent-retry.js';
import type { ExplainingRun, LifecycleExplanation } from '../lifecycle.js';
import type { CodonContext } from './context.js';

export function explainCodon(run: ExplainingRun): LifecycleExplanation {
  const context = run.snapshot.context as CodonContext;
  const codon = context.codon as {
    claudePid?: number;
    claudePidStart?: string;
    claudeLogPath?: string;
  };
  if (codon.claudePid === undefined) return {};
  const retrying = run.state === 'running' ? context.agent?.retrying : undefined;
  const upstream = run.state === 'running' || run.state === 'initializing' ? context.agent?.upstream : undefined;
  const spent = run.state === 'running' ? spentNote(context) : undefined;
  const verdict = retrying
    ? `the agent is ${retryNote(retrying)}: its model calls fail and it tries again; waiting for its next message, its result or its exit (agent.exited)`
    : upstream
      ? `the agent's model calls fail at the wire (${upstream.cause}, ${upstream.failures} in a row; the codon fails at ${context.config.upstreamFailures}): waiting for a call to go through or for its exit (agent.exited)`
      : spent && `the agent works (${spent}): waiting for its next message, its result or its exit (agent.exited)`;
  return {
    ...(verdict && { verdict }),
    agent: {
      pid: codon.claudePid,
      ...(codon.claudePidStart !== undefined && { pidStart: codon.claudePidStart }),
      ...(codon.claudeLogPath !== undefined && { logPath: codon.claudeLogPath }),
    },
  };
}

/** What was spent at the wire so far, in words: "spent 0.6000 USD over 1 model call" (for a running codon). */
function spentNote(context: CodonContext): string | undefined {
  const wire = context.agent?.wire;
  const budget = context.config?.budgetUsd;
  if (!wire) return undefined;
  const calls = `${wire.calls} model call${wire.calls === 1 ? '' : 's'}`;
  const cost = 'currentCost' in context.codon ? context.codon.currentCost : wire.costUsd;
  return `spent ${cost.toFixed(4)} USD over ${calls}${budget !== undefined ? ` of a budget of ${budget} USD` : ''}`;
}

/**
 * `Lifecycle.statusNote`: "retrying 3/10 (HTTP 529)" while the agent retries a model call (explain
 * says more), and the cost metered at the wire while the codon runs.
 */
export function codonStatusNote(run: ExplainingRun): string | undefined {
  if (run.state !== 'running' && run.state !== 'initializing') return undefined;
  const context = run.snapshot.context as CodonContext;
  const retrying = run.state === 'running' ? context.agent?.retrying : undefined;
  const notes = [retrying && retryStatusNote(retrying), spentNote(context)].filter(Boolean);
  return notes.length > 0 ? notes.join('; ') : undefined;
}
