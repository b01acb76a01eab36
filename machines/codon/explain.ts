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
  return {
    ...(retrying && {
      verdict: `the agent is ${retryNote(retrying)}: its model calls fail and it tries again; waiting for its next message, its result or its exit (agent.exited)`,
    }),
    agent: {
      pid: codon.claudePid,
      ...(codon.claudePidStart !== undefined && { pidStart: codon.claudePidStart }),
      ...(codon.claudeLogPath !== undefined && { logPath: codon.claudeLogPath }),
    },
  };
}

/** `Lifecycle.statusNote`: "retrying 3/10 (HTTP 529)" while the agent retries a model call (explain says more). */
export function codonStatusNote(run: ExplainingRun): string | undefined {
  const retrying = run.state === 'running' ? (run.snapshot.context as CodonContext).agent?.retrying : undefined;
  return retrying && retryStatusNote(retrying);
}
