/**
 * The codon's events for generated tests (`statewright test`, `statewright/testing`, this project's
 * every-path suites), its input and its test context key. `CodonTransitioned` is sampled to every
 * target the machine names from the state, with valid metadata, and refused twice: a failure
 * without its required metadata, and an edge named from the wrong state.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import type { CodonContext } from './context.js';
import { loadedSentinels } from './record.js';
import type { CodonStatus, CodonTransitionMetadata, SentinelState } from './types.js';

const AT = Date.UTC(2026, 0, 1, 12);
const CT = 'CodonTransitioned';

/** Metadata that satisfies each target's guard. */
export function validCodonMetadata(from: string, to: string): CodonTransitionMetadata {
  switch (to) {
    case 'starting':
      return { checkpointSha: 'a1b2c3d' };
    case 'initializing':
      return { claudePid: 4242, claudePidStart: '991', claudeLogPath: 'runs/run-1/codon-1.log' };
    case 'running':
      return { claudeSessionId: 'session-1' };
    case 'completed':
      return { checkpointSha: 'c0ffee1', resultMessageReceived: true };
    case 'failed':
      return {
        exitCode: 1,
        failureReason: { type: 'unknown', retriable: true, message: 'boom' },
        failedDuring: from as never,
      };
    case 'skipped':
      return { skippedDuring: from as never };
    default:
      return {};
  }
}

const sentinel: SentinelState = {
  id: 'reviewer',
  model: 'haiku',
  loadedAt: new Date(AT).toISOString(),
  llmCallCount: 2,
  failedLLMCalls: 0,
  totalCost: 0.002,
  status: 'active',
};
const tokens = { inputTokens: 10, outputTokens: 5, cacheCreationTokens: 0, cacheReadTokens: 0 };

export const codonEventSamples: Record<string, Array<EventObject & Record<string, unknown>>> = {
  'agent.spawned': [{ type: 'agent.spawned', pid: 4242, pidStart: '991', logPath: 'runs/run-1/codon-1.log' }],
  'agent.session': [
    { type: 'agent.session', sessionId: 'session-1' },
    { type: 'agent.session', sessionId: ' ' },
  ],
  'agent.assistant': [{ type: 'agent.assistant', usage: { input_tokens: 10, output_tokens: 5 }, text: 'working' }],
  'agent.result': [
    { type: 'agent.result', costUsd: 0.01, totalTokens: 15, isError: false, result: 'done', sessionId: 'session-1' },
  ],
  'agent.exited': [{ type: 'agent.exited', code: 0, signal: null, reason: 'exited with code 0' }],
  'agent.retrying': [{ type: 'agent.retrying', attempt: 3, maxRetries: 10, errorStatus: 529, error: 'overloaded' }],
  'agent.metered': [
    { type: 'agent.metered', callId: 'call-1', usage: { input_tokens: 10 }, costUsd: 0.001, calls: 1, spentUsd: 0.001 },
  ],
  'agent.upstreamFailed': [
    { type: 'agent.upstreamFailed', cause: 'connection refused to api.example.com:443', failures: 1 },
  ],
  'agent.stalled': [{ type: 'agent.stalled', silentMs: 60_000 }],
  'codon.skip': [{ type: 'codon.skip', reason: 'user' }],
  'codon.stop': [{ type: 'codon.stop', reason: 'operator' }],
  'sentinels.drained': [{ type: 'sentinels.drained', sentinelStates: [sentinel], totalCost: 0.002 }],
  'sentinels.timedOut': [
    {
      type: 'sentinels.timedOut',
      sentinelStates: [sentinel],
      totalCost: 0.002,
      pending: ['reviewer'],
      timeoutMs: 30_000,
    },
  ],
  CostsUpdated: [
    { type: 'CostsUpdated', data: { cost: 0.05, tokens } },
    { type: 'CostsUpdated', data: { cost: -1, tokens } },
  ],
  CostsIncremented: [{ type: 'CostsIncremented', data: { costDelta: 0.01, tokensDelta: tokens } }],
  AssistantMessageCountUpdated: [{ type: 'AssistantMessageCountUpdated', data: { newCount: 3 } }],
  ExtensionCountUpdated: [{ type: 'ExtensionCountUpdated', data: { extensionCount: 1 } }],
  CodonFinalCostSet: [{ type: 'CodonFinalCostSet', data: { finalCost: 0.07, finalTokens: tokens } }],
  SentinelStatesUpdated: [{ type: 'SentinelStatesUpdated', data: { sentinelStates: [sentinel], totalCost: 0.002 } }],
  CheckpointCreated: [
    { type: 'CheckpointCreated', data: { checkpointType: 'rig-setup', sha: 'a1b2c3d', branch: 'run-1' } },
    { type: 'CheckpointCreated', data: { checkpointType: 'completed', sha: 'a1b2c3d', branch: 'run-1' } },
  ],
};

/** The targets the machine gives `CodonTransitioned` from the snapshot's state. */
const targetsFrom = (snapshot: AnyMachineSnapshot): string[] => {
  const node = snapshot.machine.states[snapshot.value as string];
  const targets = (node?.transitions.get(CT) ?? []).flatMap((t) => t.target?.map((n) => n.key) ?? []);
  return [...new Set(targets)];
};

/**
 * Valid `CodonTransitioned` events from `from` to each of `targets`, and two refused ones: a failure
 * without its required metadata, and an edge named from the wrong state.
 */
export function codonTransitionSamples(
  from: CodonStatus,
  targets: readonly string[],
): Array<EventObject & Record<string, unknown>> {
  return [
    ...targets.map((to) => ({ type: CT, data: { from, to, metadata: validCodonMetadata(from, to) } })),
    { type: CT, data: { from, to: 'failed', metadata: { exitCode: 1 } } },
    {
      type: CT,
      data: {
        from: from === 'preparing' ? 'starting' : 'preparing',
        to: 'failed',
        metadata: validCodonMetadata(from, 'failed'),
      },
    },
  ];
}

export const codonTesting = {
  testInputs: [
    {
      runId: 'run-1',
      codonId: 'codon-1',
      startedAt: AT,
      workTree: '/tmp/statewright-work',
      agent: { command: ['claude', '-p'], logPath: 'runs/run-1/codon-1.log' },
    },
  ],
  testEvents: (type: string, snapshot: AnyMachineSnapshot): EventObject[] =>
    (type === CT
      ? codonTransitionSamples(snapshot.value as CodonStatus, targetsFrom(snapshot))
      : (codonEventSamples[type] ?? [])
    ).map((event) => ({ ...event, at: AT })),
  /** Only these decide which events are taken: costs, counters and times just accumulate. */
  testContextKey: (context: CodonContext) => ({
    sentinels: loadedSentinels(context.codon).length > 0,
    exited: context.agent.exit !== undefined,
    finishing: context.finishing !== undefined,
  }),
};
