/**
 * The codon's guards. The seed's `CodonTransitioned` edges and update events are guarded by their
 * zod schemas (`transitionsFrom`, `update`: a refusal names the bad fields); an agent report that
 * stands for a seed edge is guarded by the metadata it stands for (built here, and entered by the
 * machine's action with the same builder); and the named guards of the machine's `setup()` read
 * what the machine knows of its agent.
 */
import { z } from 'zod';
import { metadataGuard } from '../../src/graph/metadata-guard.js';
import type { CodonContext } from './context.js';
import type { CodonEventOf, CodonSeedEvent, CodonTransitionedEvent } from './events.js';
import { loadedSentinels } from './record.js';
import { codonEventDataSchemas, codonMetadataSchemas } from './schemas.js';
import type { ActiveCodonStatus, CodonExecution, CodonStatus, CodonTransitionMetadata } from './types.js';

const transitionData = (event: any) => (event as Partial<CodonTransitionedEvent>).data;

/** The `CodonTransitioned` edges out of `from`: one per target, guarded by the target's metadata schema. */
export function transitionsFrom(from: ActiveCodonStatus, ...targets: CodonStatus[]) {
  return targets.map((to) => ({
    target: to,
    guard: metadataGuard(codonMetadataSchemas[to], to, (event) => transitionData(event)?.metadata, {
      namedEdge: {
        source: from,
        read: (event) => ({ from: transitionData(event)?.from, to: transitionData(event)?.to }),
      },
    }),
    actions: 'enterNamedState' as const,
  }));
}

/** A seed update event, its payload checked against the seed's schema, applied to the record. */
export function update(
  type: Exclude<CodonSeedEvent['type'], 'CodonTransitioned'>,
  state: ActiveCodonStatus,
  extra?: z.ZodType,
) {
  const schema = extra ? z.intersection(codonEventDataSchemas[type], extra) : codonEventDataSchemas[type];
  return {
    guard: metadataGuard(schema, state, (event) => (event as { data?: unknown }).data, {
      name: extra ? 'rig-setup' : 'valid data',
    }),
    actions: ['applyUpdate' as const, 'checkBudget' as const],
  };
}

export const rigCheckpointOnly = z.object({ checkpointType: z.literal('rig-setup') });

export const spawnedMetadata = (
  event: CodonEventOf<'agent.spawned'>,
  context?: CodonContext,
): CodonTransitionMetadata => ({
  claudePid: event.pid,
  claudePidStart: event.pidStart,
  claudeLogPath: event.logPath,
  ...(context?.config.previousSessionId !== undefined && { previousSessionId: context.config.previousSessionId }),
});

export const spawnFailedMetadata = (event: CodonEventOf<'agent.exited'>): CodonTransitionMetadata => ({
  exitCode: event.code ?? -1,
  failureReason: { type: 'unknown', retriable: false, message: `The agent could not be started: ${event.reason}` },
  failedDuring: 'starting',
});

export const drainTimedOutMetadata = (
  event: CodonEventOf<'sentinels.timedOut'>,
  context?: CodonContext,
): CodonTransitionMetadata => ({
  exitCode: context?.agent.exit?.code ?? -1,
  failureReason: {
    type: 'timeout',
    retriable: true,
    message: `Sentinel queues did not drain within ${event.timeoutMs} ms: ${event.pending.join(', ') || '(none named)'}`,
  },
  failedDuring: 'completing-sentinels',
});

const hasLoadedSentinels = (codon: CodonExecution) => loadedSentinels(codon).length > 0;

/** starting -> initializing on the agent's spawn report. */
export const agentSpawnedGuard = metadataGuard(codonMetadataSchemas.initializing, 'initializing', spawnedMetadata);
/** starting -> failed when the agent exits before it reports its spawn. */
export const spawnFailedGuard = metadataGuard(codonMetadataSchemas.failed, 'failed', spawnFailedMetadata);
/** initializing -> running on the agent's session id. */
export const agentSessionGuard = metadataGuard(codonMetadataSchemas.running, 'running', (event) => ({
  claudeSessionId: (event as CodonEventOf<'agent.session'>).sessionId,
}));
/** completing-sentinels -> failed at the drain deadline. */
export const drainTimedOutGuard = metadataGuard(codonMetadataSchemas.failed, 'failed', drainTimedOutMetadata);

type GuardArgs = { context: CodonContext };

export const codonGuards = {
  /** The agent is still running: it has not reported its exit. */
  agentAlive: ({ context }: GuardArgs) => context.agent.exit === undefined,
  exitWithSentinels: ({ context }: GuardArgs) => context.agent.exit === undefined && hasLoadedSentinels(context.codon),
  exitWithoutSentinels: ({ context }: GuardArgs) =>
    context.agent.exit === undefined && !hasLoadedSentinels(context.codon),
  notFinishing: ({ context }: GuardArgs) => context.finishing === undefined,
};
