/**
 * The events a codon takes. Three families:
 * - the seed's protocol (`{ type, data }`, seed: "The 13 Event Types"): `CodonTransitioned` drives
 *   every state change; the cost, count, sentinel and checkpoint events update the record;
 * - the agent process actor's reports (`agent.*`, the shared contract in src/actors/agent-process.ts),
 *   mapped onto the seed's edges where they mean the same thing (`agent.session` is initializing ->
 *   running);
 * - requests and reports of the codon's own actors (`codon.skip`, `codon.stop`, `sentinels.*`).
 * Every event may carry `at` (ms since the epoch), stamped by the runtime: the machine's only clock.
 */
import type { CodonStatus, CodonTransitionMetadata, SentinelState, TokenUsage } from './types.js';
import type { AgentUsage } from '../agent-pricing.js';

export interface Stamped {
  at?: number;
}
export interface Addressed {
  runId?: string;
  codonId?: string;
}

export interface CodonTransitionedEvent extends Stamped {
  type: 'CodonTransitioned';
  data: Addressed & { from: CodonStatus; to: CodonStatus; metadata?: CodonTransitionMetadata };
}
export interface CostsUpdatedEvent extends Stamped {
  type: 'CostsUpdated';
  data: Addressed & { cost: number; tokens: TokenUsage };
}
export interface CostsIncrementedEvent extends Stamped {
  type: 'CostsIncremented';
  data: Addressed & { costDelta: number; tokensDelta: Partial<TokenUsage> };
}
export interface AssistantMessageCountUpdatedEvent extends Stamped {
  type: 'AssistantMessageCountUpdated';
  data: Addressed & { newCount: number };
}
export interface ExtensionCountUpdatedEvent extends Stamped {
  type: 'ExtensionCountUpdated';
  data: Addressed & { extensionCount: number };
}
export interface CodonFinalCostSetEvent extends Stamped {
  type: 'CodonFinalCostSet';
  data: Addressed & { finalCost: number; finalTokens: TokenUsage };
}
export interface SentinelStatesUpdatedEvent extends Stamped {
  type: 'SentinelStatesUpdated';
  data: Addressed & { sentinelStates: SentinelState[]; totalCost: number };
}
export interface CheckpointCreatedEvent extends Stamped {
  type: 'CheckpointCreated';
  data: Addressed & { checkpointType: 'rig-setup' | 'completed' | 'error' | 'skipped'; sha: string; branch?: string };
}

/** The seed's events that concern one codon record. */
export type CodonSeedEvent =
  | CodonTransitionedEvent
  | CostsUpdatedEvent
  | CostsIncrementedEvent
  | AssistantMessageCountUpdatedEvent
  | ExtensionCountUpdatedEvent
  | CodonFinalCostSetEvent
  | SentinelStatesUpdatedEvent
  | CheckpointCreatedEvent;

/** Claude Code's `usage` object, as the agent reports it (Codex's, once read, has the same shape). */
export type ClaudeUsage = AgentUsage;

export type AgentEvent =
  | ({ type: 'agent.spawned'; pid: number; pidStart: string; logPath: string } & Stamped)
  | ({ type: 'agent.session'; sessionId: string } & Stamped)
  | ({
      type: 'agent.assistant';
      messageId?: string;
      usage?: ClaudeUsage;
      text: string;
      /** Claude's own message (an API error, a timeout: `"model":"<synthetic>"`), not the model's. */
      synthetic?: boolean;
    } & Stamped)
  | ({
      type: 'agent.result';
      costUsd?: number;
      totalTokens?: number;
      usage?: ClaudeUsage;
      result?: string;
      isError: boolean;
      sessionId?: string;
    } & Stamped)
  | ({ type: 'agent.exited'; code: number | null; signal: string | null; reason: string } & Stamped)
  /** A model call through the metering proxy ended: its usage and cost, and the proxy's totals. */
  | ({
      type: 'agent.metered';
      callId: string;
      usage: ClaudeUsage;
      costUsd: number;
      calls: number;
      spentUsd: number;
    } & Stamped)
  /** A model call the upstream did not take (unreachable, a 5xx), `failures` in a row. */
  | ({ type: 'agent.upstreamFailed'; cause: string; failures: number } & Stamped)
  /** The agent has written nothing for `silentMs`. */
  | ({ type: 'agent.stalled'; silentMs: number } & Stamped)
  /** Claude retrying a failed model call (`system/api_retry`). */
  | ({
      type: 'agent.retrying';
      attempt: number;
      maxRetries?: number;
      errorStatus?: number;
      error?: string;
      retryDelayMs?: number;
    } & Stamped);

export type CodonRequestEvent =
  /** Skip the codon: stop the agent, then finish as skipped (unless it already produced a result). */
  | ({ type: 'codon.skip'; reason?: string } & Stamped)
  /** Force-stop the codon: stop the agent, then finish as failed. */
  | ({ type: 'codon.stop'; reason?: string } & Stamped)
  | ({ type: 'sentinels.drained'; sentinelStates: SentinelState[]; totalCost: number } & Stamped)
  | ({
      type: 'sentinels.timedOut';
      sentinelStates: SentinelState[];
      totalCost: number;
      pending: string[];
      timeoutMs: number;
    } & Stamped);

export type CodonEvent = CodonSeedEvent | AgentEvent | CodonRequestEvent;

/** The event of one type. */
export type CodonEventOf<T extends CodonEvent['type']> = Extract<CodonEvent, { type: T }>;
