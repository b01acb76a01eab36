/**
 * The codon machine's context: the validated input, the seed's per-state record (types.ts), what
 * the machine knows of its agent beyond the record, and the final transition once planned.
 */
import type { CodonConfig } from './config.js';
import type { AgentRetrying } from '../agent-retry.js';
import type { AgentExit, StopRequest } from './final-status.js';
import type { CodonExecution, PlannedTransition, TokenUsage } from './types.js';

export interface CodonContext {
  runId: string;
  config: CodonConfig;
  /** The seed's record: the data of the state the codon is in. */
  codon: CodonExecution;
  /** What the machine knows about the agent beyond the record. */
  agent: {
    /** The first result: whether it was an error, and an error's text (Claude's API error message). */
    result?: { isError: boolean; text?: string };
    exit?: AgentExit;
    stop?: StopRequest;
    /** The model calls metered at the wire (the metering proxy): how many, their cost and tokens. */
    wire?: { calls: number; costUsd: number; tokens: TokenUsage };
    /** The upstream failing at the wire: its last cause and how many calls in a row, until a call ends well. */
    upstream?: { cause: string; failures: number };
    /** The model call the agent is retrying (Claude's `system/api_retry`), until its next message or result. */
    retrying?: AgentRetrying;
  };
  /** The final transition being checkpointed, once planned. */
  finishing?: PlannedTransition;
  /** Absolute time (ms) by which sentinel queues must drain; set on entering completing-sentinels. */
  drainDeadline?: number;
}
