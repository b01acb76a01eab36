/**
 * Pure functions on one codon record: what each seed event does to it (seed-systems.md §1.1,
 * "CodonTransitioned algorithm" step 5 and the per-event effects). The codon machine's actions and
 * the run-level reducer both call these, so a record is built the same way whichever drives it.
 * Which state accepts which event is the machine's business, not these functions'.
 */
import type { CodonSeedEvent, ClaudeUsage } from './events.js';
import { MissingTimestampError } from './errors.js';
import {
  ZERO_TOKENS,
  type ActiveCodonStatus,
  type CodonExecution,
  type CodonStatus,
  type CodonTransitionMetadata,
  type CompletedCodon,
  type ExecutedSentinels,
  type FailedCodon,
  type LoadedSentinels,
  type LoopContext,
  type PreparingCodon,
  type RunningCodon,
  type SentinelState,
  type SkippedCodon,
  type TerminalCodonStatus,
  type TokenUsage,
} from './types.js';
import { costAtPricing, tokensOfUsage, type AgentPricing } from '../agent-pricing.js';

/** USD per million tokens, by kind; turns an assistant message's usage into a cost delta. */
export type CostsPerMTok = AgentPricing;

/** Every field any state may hold: how the functions below read a record whatever its state. */
type AnyFields = Partial<Omit<RunningCodon, 'status'>> &
  Partial<Omit<CompletedCodon, 'status' | 'sentinels'>> &
  Partial<Omit<FailedCodon, 'status' | 'sentinels' | 'exitCode'>> &
  Partial<Omit<SkippedCodon, 'status' | 'sentinels'>> & { sentinels?: LoadedSentinels | ExecutedSentinels };

const fields = (record: CodonExecution) => record as unknown as AnyFields;

/** Drops keys whose value is undefined, so stored records hold only what is known. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export function isoTime(at: number | undefined, eventType: string): string {
  if (typeof at !== 'number' || !Number.isFinite(at)) throw new MissingTimestampError(eventType);
  return new Date(at).toISOString();
}

export function createCodonRecord(codonId: string, at: number | undefined, loopContext?: LoopContext): PreparingCodon {
  return defined({ codonId, status: 'preparing' as const, startTime: isoTime(at, 'CodonStarted'), loopContext });
}

/** The sentinels an active codon has loaded; none once the codon is terminal (they are `executed` then). */
export function loadedSentinels(codon: CodonExecution): SentinelState[] {
  const sentinels = fields(codon).sentinels;
  return sentinels && 'loaded' in sentinels ? sentinels.loaded : [];
}

/** `loaded` becomes `executed` on every terminal state: the sign that sentinel activity is final. */
function executed(sentinels: LoadedSentinels | ExecutedSentinels | undefined): ExecutedSentinels | undefined {
  if (!sentinels) return undefined;
  return 'executed' in sentinels ? sentinels : { executed: sentinels.loaded, totalCost: sentinels.totalCost };
}

/**
 * The record after `CodonTransitioned` to `to` (already validated). `at` is needed only for
 * terminal targets, which stamp `endTime`.
 */
export function enterCodonState(
  record: CodonExecution,
  to: CodonStatus,
  metadata: CodonTransitionMetadata = {},
  at?: number,
): CodonExecution {
  const r = fields(record);
  const base = { codonId: record.codonId, startTime: record.startTime, loopContext: r.loopContext };
  switch (to) {
    case 'preparing':
      throw new Error('A codon enters preparing only when it starts (CodonStarted), never by a transition.');
    case 'starting':
      // The seed builds a fresh object here: nothing of preparing carries over but the rig checkpoint.
      return defined({
        ...base,
        status: 'starting',
        rigSetupCheckpoint: metadata.checkpointSha ?? r.rigSetupCheckpoint,
      });
    case 'initializing':
      return defined({
        ...base,
        status: 'initializing',
        rigSetupCheckpoint: r.rigSetupCheckpoint,
        sentinels: r.sentinels as LoadedSentinels | undefined,
        claudePid: metadata.claudePid!,
        claudePidStart: metadata.claudePidStart ?? r.claudePidStart,
        claudeLogPath: metadata.claudeLogPath!,
        previousSessionId: metadata.previousSessionId ?? r.previousSessionId,
      });
    case 'running':
      return defined({
        ...(record as object),
        status: 'running',
        claudeSessionId: metadata.claudeSessionId!,
        currentCost: 0,
        currentTokens: { ...ZERO_TOKENS },
        assistantMessageCount: 0,
        extensionCount: 0,
      }) as RunningCodon;
    case 'completing-sentinels':
      return { ...(record as RunningCodon), status: 'completing-sentinels' };
    case 'completed':
    case 'failed':
    case 'skipped':
      return terminalRecord(record, to, metadata, isoTime(at, 'CodonTransitioned'));
  }
}

function terminalRecord(
  record: CodonExecution,
  to: TerminalCodonStatus,
  metadata: CodonTransitionMetadata,
  endTime: string,
): CodonExecution {
  const r = fields(record);
  const kept = {
    codonId: record.codonId,
    startTime: record.startTime,
    loopContext: r.loopContext,
    endTime,
    rigSetupCheckpoint: r.rigSetupCheckpoint,
    claudePid: r.claudePid,
    claudePidStart: r.claudePidStart,
    claudeSessionId: r.claudeSessionId,
    claudeLogPath: r.claudeLogPath,
    previousSessionId: r.previousSessionId,
    extensionCount: r.extensionCount,
    assistantMessageCount: r.assistantMessageCount,
    sentinels: executed(r.sentinels),
  };
  const cost = r.currentCost ?? 0;
  const tokens = { ...(r.currentTokens ?? ZERO_TOKENS) };
  if (to === 'completed') {
    return defined<CompletedCodon>({
      ...kept,
      status: 'completed',
      exitCode: 0,
      finalCost: cost,
      finalTokens: tokens,
      resultMessageReceived: metadata.resultMessageReceived ?? false,
      budgetExceeded: metadata.budgetExceeded,
      completionCheckpoint: metadata.checkpointSha!,
    });
  }
  if (to === 'failed') {
    return defined<FailedCodon>({
      ...kept,
      status: 'failed',
      failedDuring: metadata.failedDuring!,
      exitCode: metadata.exitCode!,
      failureReason: metadata.failureReason!,
      partialCost: cost,
      partialTokens: tokens,
      errorCheckpoint: metadata.checkpointSha,
    });
  }
  return defined<SkippedCodon>({
    ...kept,
    status: 'skipped',
    skippedDuring: metadata.skippedDuring!,
    partialCost: cost,
    partialTokens: tokens,
    skipCheckpoint: metadata.checkpointSha,
  });
}

/**
 * The failed record a crash leaves (seed: RunCrashed): exit code -1, "Server crashed", whatever
 * cost had accrued kept as the partial cost.
 */
export function crashedRecord(record: CodonExecution, at: number | undefined): CodonExecution {
  return terminalRecord(record, 'failed', crashMetadata(record.status as ActiveCodonStatus), isoTime(at, 'RunCrashed'));
}

/** The metadata of the failure a crash causes (seed: RunCrashed): exit code -1, "Server crashed", not retriable. */
export function crashMetadata(during: ActiveCodonStatus): CodonTransitionMetadata {
  return {
    exitCode: -1,
    failureReason: { type: 'unknown', retriable: false, message: 'Server crashed' },
    failedDuring: during,
  };
}

export function addTokens(a: TokenUsage, b: Partial<TokenUsage>): TokenUsage {
  return {
    inputTokens: a.inputTokens + (b.inputTokens ?? 0),
    outputTokens: a.outputTokens + (b.outputTokens ?? 0),
    cacheCreationTokens: a.cacheCreationTokens + (b.cacheCreationTokens ?? 0),
    cacheReadTokens: a.cacheReadTokens + (b.cacheReadTokens ?? 0),
  };
}

/** Claude's snake_case usage as the seed's TokenUsage. */
export const tokensFromUsage: (usage: ClaudeUsage | undefined) => TokenUsage = tokensOfUsage;

export const costOf: (tokens: TokenUsage, pricing: CostsPerMTok | undefined) => number = costAtPricing;

/**
 * What a seed update event (everything but CodonTransitioned) does to a record. Call it only for a
 * record the event applies to (the machine's states say which); the function itself does not judge.
 */
export function applyCodonUpdate(
  record: CodonExecution,
  event: Exclude<CodonSeedEvent, { type: 'CodonTransitioned' }>,
): CodonExecution {
  const r = record as RunningCodon;
  switch (event.type) {
    case 'CostsUpdated':
      return { ...r, currentCost: event.data.cost, currentTokens: { ...event.data.tokens } };
    case 'CostsIncremented':
      return {
        ...r,
        currentCost: r.currentCost + event.data.costDelta,
        currentTokens: addTokens(r.currentTokens, event.data.tokensDelta),
      };
    case 'CodonFinalCostSet':
      return { ...r, currentCost: event.data.finalCost, currentTokens: { ...event.data.finalTokens } };
    case 'AssistantMessageCountUpdated':
      return { ...record, assistantMessageCount: event.data.newCount } as CodonExecution;
    case 'ExtensionCountUpdated':
      return { ...r, extensionCount: event.data.extensionCount };
    case 'SentinelStatesUpdated':
      return {
        ...record,
        sentinels: { loaded: event.data.sentinelStates, totalCost: event.data.totalCost },
      } as CodonExecution;
    case 'CheckpointCreated': {
      const field = (
        {
          'rig-setup': 'rigSetupCheckpoint',
          completed: 'completionCheckpoint',
          error: 'errorCheckpoint',
          skipped: 'skipCheckpoint',
        } as const
      )[event.data.checkpointType];
      return { ...record, [field]: event.data.sha } as CodonExecution;
    }
  }
}

/** One assistant message: count it, add its tokens, and their cost at `pricing` (the result's cost later overrides). */
export function withAssistantMessage(
  record: RunningCodon,
  usage: ClaudeUsage | undefined,
  pricing: CostsPerMTok | undefined,
): RunningCodon {
  const tokens = tokensFromUsage(usage);
  return {
    ...record,
    assistantMessageCount: record.assistantMessageCount + 1,
    currentTokens: addTokens(record.currentTokens, tokens),
    currentCost: record.currentCost + costOf(tokens, pricing),
  };
}

/** The cost a codon stands for, whatever its state. A skipped codon counts 0, as in the seed. */
export function getCodonCost(codon: CodonExecution): number {
  switch (codon.status) {
    case 'completed':
      return codon.finalCost;
    case 'failed':
      return codon.partialCost;
    case 'running':
    case 'completing-sentinels':
      return codon.currentCost;
    default:
      return 0;
  }
}

/** The tokens a codon stands for, by the same rule as `getCodonCost`. */
export function getCodonTokens(codon: CodonExecution): TokenUsage {
  switch (codon.status) {
    case 'completed':
      return codon.finalTokens;
    case 'failed':
      return codon.partialTokens;
    case 'running':
    case 'completing-sentinels':
      return codon.currentTokens;
    default:
      return { ...ZERO_TOKENS };
  }
}
