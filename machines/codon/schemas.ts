/**
 * The codon's zod schemas: the metadata each target state requires (used as XState guards through
 * `metadataGuard` and by `codon.validateTransition`), and the payloads of the seed's events.
 */
import { z } from 'zod';
import { CODON_STATUSES, FAILURE_TYPES, SENTINEL_UNLOAD_REASONS, type CodonStatus } from './types.js';

const nonBlank = z.string().refine((value) => value.trim().length > 0, { error: 'must not be blank' });
const count = z.number().int().nonnegative();
const money = z.number().nonnegative();

export const codonStatusSchema = z.enum(CODON_STATUSES);
export const activeCodonStatusSchema = z.enum([
  'preparing',
  'starting',
  'initializing',
  'running',
  'completing-sentinels',
]);

export const tokenUsageSchema = z.object({
  inputTokens: count,
  outputTokens: count,
  cacheCreationTokens: count,
  cacheReadTokens: count,
});

export const failureReasonSchema = z.object({
  type: z.enum(FAILURE_TYPES),
  retriable: z.boolean(),
  message: z.string().optional(),
  sentinelRefs: z.array(z.string()).optional(),
});

export const sentinelStateSchema = z.object({
  id: nonBlank,
  model: z.string(),
  loadedAt: z.string(),
  unloadedAt: z.string().optional(),
  llmCallCount: count,
  failedLLMCalls: count,
  lastLlmCallAt: z.string().optional(),
  totalTriggers: count.optional(),
  totalCost: money,
  status: z.enum(['active', 'unloaded']),
  unloadReason: z.enum(SENTINEL_UNLOAD_REASONS).optional(),
});

export const loopContextSchema = z.object({ loopId: nonBlank, iteration: count, codonIndexInLoop: count });

/**
 * Required metadata per target state (seed: `validateTransitionMetadata`). Targets without
 * requirements take any metadata or none. The schemas are the guards: change one and both the
 * machine and `codon.validateTransition` follow.
 */
export const codonMetadataSchemas = {
  preparing: z.unknown(),
  starting: z.object({ checkpointSha: nonBlank.optional() }).optional(),
  initializing: z.object({
    claudePid: z.number().int().positive(),
    claudeLogPath: nonBlank,
    claudePidStart: z.string().optional(),
    previousSessionId: z.string().optional(),
  }),
  running: z.object({ claudeSessionId: nonBlank }),
  'completing-sentinels': z.unknown(),
  completed: z.object({
    checkpointSha: nonBlank,
    resultMessageReceived: z.boolean().optional(),
    budgetExceeded: z.boolean().optional(),
  }),
  failed: z.object({
    exitCode: z.number().int(),
    failureReason: failureReasonSchema,
    failedDuring: activeCodonStatusSchema,
    checkpointSha: nonBlank.optional(),
  }),
  skipped: z.object({
    skippedDuring: activeCodonStatusSchema,
    checkpointSha: nonBlank.optional(),
  }),
} satisfies Record<CodonStatus, z.ZodType>;

// The seed's event payloads (`event.data`). runId and codonId address a record at the run level;
// a codon run of the runtime is already one codon, so there they may be left out.
const address = { runId: z.string().optional(), codonId: z.string().optional() };

export const codonEventDataSchemas = {
  CodonTransitioned: z.object({
    ...address,
    from: codonStatusSchema,
    to: codonStatusSchema,
    metadata: z.unknown().optional(),
  }),
  CostsUpdated: z.object({ ...address, cost: money, tokens: tokenUsageSchema }),
  CostsIncremented: z.object({ ...address, costDelta: z.number(), tokensDelta: tokenUsageSchema.partial() }),
  AssistantMessageCountUpdated: z.object({ ...address, newCount: count }),
  ExtensionCountUpdated: z.object({ ...address, extensionCount: count }),
  CodonFinalCostSet: z.object({ ...address, finalCost: money, finalTokens: tokenUsageSchema }),
  SentinelStatesUpdated: z.object({ ...address, sentinelStates: z.array(sentinelStateSchema), totalCost: money }),
  CheckpointCreated: z.object({
    ...address,
    checkpointType: z.enum(['rig-setup', 'completed', 'error', 'skipped']),
    sha: nonBlank,
    branch: z.string().optional(),
  }),
};
