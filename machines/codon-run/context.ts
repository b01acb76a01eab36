/** The run level's context: RunStarted's data, when the run started and ended, and its initial checkpoint. */
import type { StartingConditions } from '../codon/runs.js';

export type RunLevelStatus = 'running' | 'completed' | 'failed' | 'crashed';

export interface CodonRunContext {
  runId: string;
  runFolder: string;
  gitBranch: string;
  startingConditions: StartingConditions;
  serverPid: number;
  startTime: string;
  endTime?: string;
  initialCheckpoint?: string;
}
