/**
 * The codon's data, state by state (seed: hankweave-codon-state-machine.txt, "The 8 States"), as a
 * discriminated union on `status`: the compiler knows which fields exist in which state.
 * Times are ISO 8601 strings as in the seed; they come from the runtime's `event.at`, never a clock.
 */

export const CODON_STATUSES = [
  'preparing',
  'starting',
  'initializing',
  'running',
  'completing-sentinels',
  'completed',
  'failed',
  'skipped',
] as const;

export type CodonStatus = (typeof CODON_STATUSES)[number];
export type TerminalCodonStatus = 'completed' | 'failed' | 'skipped';
export type ActiveCodonStatus = Exclude<CodonStatus, TerminalCodonStatus>;

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
}

export const FAILURE_TYPES = ['timeout', 'rate-limit', 'api-error', 'sentinel-load-failure', 'unknown'] as const;

export interface FailureReason {
  type: (typeof FAILURE_TYPES)[number];
  retriable: boolean;
  message?: string;
  /** Which sentinels failed to load (for sentinel-load-failure). */
  sentinelRefs?: string[];
}

/** The seed's reasons, plus `drain-timeout` for a sentinel whose queue was abandoned at the drain deadline. */
export const SENTINEL_UNLOAD_REASONS = [
  'codon-complete',
  'fatal-error',
  'consecutive-failures',
  'drain-timeout',
] as const;
export type SentinelUnloadReason = (typeof SENTINEL_UNLOAD_REASONS)[number];

/** One sentinel's activity during the codon (seed: "Sentinel State Integration"). */
export interface SentinelState {
  id: string;
  model: string;
  loadedAt: string;
  unloadedAt?: string;
  llmCallCount: number;
  failedLLMCalls: number;
  lastLlmCallAt?: string;
  totalTriggers?: number;
  totalCost: number;
  status: 'active' | 'unloaded';
  unloadReason?: SentinelUnloadReason;
}

/** While the codon is active its sentinels are `loaded`; on any terminal state the field becomes `executed`. */
export interface LoadedSentinels {
  loaded: SentinelState[];
  totalCost: number;
}
export interface ExecutedSentinels {
  executed: SentinelState[];
  totalCost: number;
}

export interface LoopContext {
  loopId: string;
  /** 0-based. */
  iteration: number;
  codonIndexInLoop: number;
}

interface BaseCodon {
  codonId: string;
  startTime: string;
  loopContext?: LoopContext;
}

export interface PreparingCodon extends BaseCodon {
  status: 'preparing';
}

export interface StartingCodon extends BaseCodon {
  status: 'starting';
  rigSetupCheckpoint?: string;
  sentinels?: LoadedSentinels;
}

export interface InitializingCodon extends BaseCodon {
  status: 'initializing';
  rigSetupCheckpoint?: string;
  sentinels?: LoadedSentinels;
  claudePid: number;
  /** The process's start time as the OS reports it: with the pid, it tells the same process from a reused pid. */
  claudePidStart?: string;
  claudeLogPath: string;
  previousSessionId?: string;
}

export interface RunningCodon extends Omit<InitializingCodon, 'status'> {
  status: 'running';
  claudeSessionId: string;
  currentCost: number;
  currentTokens: TokenUsage;
  assistantMessageCount: number;
  extensionCount: number;
}

export interface CompletingSentinelsCodon extends Omit<RunningCodon, 'status'> {
  status: 'completing-sentinels';
}

/** What a terminal record keeps from the active states it went through, when it got that far. */
interface TerminalCodon extends BaseCodon {
  endTime: string;
  rigSetupCheckpoint?: string;
  claudePid?: number;
  claudePidStart?: string;
  claudeSessionId?: string;
  claudeLogPath?: string;
  previousSessionId?: string;
  extensionCount?: number;
  sentinels?: ExecutedSentinels;
}

export interface CompletedCodon extends TerminalCodon {
  status: 'completed';
  exitCode: 0;
  finalCost: number;
  finalTokens: TokenUsage;
  resultMessageReceived: boolean;
  budgetExceeded?: boolean;
  completionCheckpoint: string;
  assistantMessageCount?: number;
}

export interface FailedCodon extends TerminalCodon {
  status: 'failed';
  failedDuring: ActiveCodonStatus;
  exitCode: number;
  failureReason: FailureReason;
  partialCost: number;
  partialTokens: TokenUsage;
  errorCheckpoint?: string;
  assistantMessageCount?: number;
}

export interface SkippedCodon extends TerminalCodon {
  status: 'skipped';
  skippedDuring: ActiveCodonStatus;
  partialCost: number;
  partialTokens: TokenUsage;
  assistantMessageCount?: number;
  skipCheckpoint?: string;
}

export type CodonExecution =
  | PreparingCodon
  | StartingCodon
  | InitializingCodon
  | RunningCodon
  | CompletingSentinelsCodon
  | CompletedCodon
  | FailedCodon
  | SkippedCodon;

/** The record in state `S`. */
export type CodonIn<S extends CodonStatus> = Extract<CodonExecution, { status: S }>;

/** `CodonTransitioned.data.metadata` (seed: "CodonTransitioned in Detail"). */
export interface CodonTransitionMetadata {
  // starting -> initializing
  claudePid?: number;
  claudePidStart?: string;
  claudeLogPath?: string;
  previousSessionId?: string;
  // initializing -> running
  claudeSessionId?: string;
  // any -> failed
  exitCode?: number;
  failureReason?: FailureReason;
  failedDuring?: ActiveCodonStatus;
  // any -> skipped
  skippedDuring?: ActiveCodonStatus;
  // -> completed (and the rig checkpoint on preparing -> starting, error/skip checkpoints)
  resultMessageReceived?: boolean;
  budgetExceeded?: boolean;
  checkpointSha?: string;
}

/** A transition the codon is about to make, as `CodonTransitioned.data` carries it. */
export interface PlannedTransition {
  from: ActiveCodonStatus;
  to: CodonStatus;
  metadata?: CodonTransitionMetadata;
}

export const ZERO_TOKENS: Readonly<TokenUsage> = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cacheCreationTokens: 0,
  cacheReadTokens: 0,
});
