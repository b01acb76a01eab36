/**
 * What only the codon lifecycle knows of why a codon is where it is (`Lifecycle.explain`): the
 * agent process its record names, once spawned. The generic verdict (its actors and timers) holds.
 */
import type { ExplainingRun, LifecycleExplanation } from '../lifecycle.js';
import type { CodonContext } from './context.js';

export function explainCodon(run: ExplainingRun): LifecycleExplanation {
  const codon = (run.snapshot.context as CodonContext).codon as {
    claudePid?: number;
    claudePidStart?: string;
    claudeLogPath?: string;
  };
  if (codon.claudePid === undefined) return {};
  return {
    agent: {
      pid: codon.claudePid,
      ...(codon.claudePidStart !== undefined && { pidStart: codon.claudePidStart }),
      ...(codon.claudeLogPath !== undefined && { logPath: codon.claudeLogPath }),
    },
  };
}
