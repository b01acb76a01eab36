import type { AnyMachineSnapshot, EventObject } from 'xstate';
import {
  loadedSentinels,
  type CodonContext,
  type CodonStatus,
  type CodonTransitionMetadata,
  type SentinelState,
} from '../../../machines/codon/index.js';
import type { LifecycleModel } from './model.js';

const AT = Date.UTC(2026, 0, 1, 12);
const CT = 'CodonTransitioned';

/**
 * ../shared/seeds/hankweave-codon-state-machine.txt, `CodonTransitions`, row for row: every edge
 * is taken by the seed's `CodonTransitioned` event.
 */
const seedTable: Array<readonly [string, string, string]> = [
  ['preparing', CT, 'starting'],
  ['preparing', CT, 'failed'],
  ['preparing', CT, 'skipped'],
  ['starting', CT, 'initializing'],
  ['starting', CT, 'failed'],
  ['starting', CT, 'skipped'],
  ['initializing', CT, 'running'],
  ['initializing', CT, 'failed'],
  ['initializing', CT, 'skipped'],
  ['running', CT, 'completing-sentinels'],
  ['running', CT, 'completed'],
  ['running', CT, 'failed'],
  ['running', CT, 'skipped'],
  ['completing-sentinels', CT, 'completed'],
  ['completing-sentinels', CT, 'failed'],
  ['completing-sentinels', CT, 'skipped'],
];

const whyUpdate = (states: string) =>
  `seed event; the source's reducer applies it only in ${states} (seed-systems.md §1.1)`;
/** What the metering proxy reports, taken in initializing and running alike (the budget is checked in running). */
const atTheWire = (state: string) =>
  [
    ['agent.metered', 'a model call metered at the wire: counted, the running cost (and the budget)'],
    ['agent.upstreamFailed', 'the upstream failed at the wire: kept, too many in a row stop the agent'],
    ['agent.stalled', 'the agent wrote nothing for the stall bound: stop it'],
  ].map(([event, why]) => [state, event!, state, why!] as const);

const updates = (state: string, events: string[], states: string) =>
  events.map((e) => [state, e, state, whyUpdate(states)] as const);

const additions: Array<readonly [string, string, string, string]> = [
  [
    'initializing',
    CT,
    'completed',
    'real project (SEED≠SRC): the process exited cleanly but its init message failed validation',
  ],
  [
    'starting',
    'agent.spawned',
    'initializing',
    'the agent actor reports the spawn: starting -> initializing with claudePid and claudeLogPath',
  ],
  ['starting', 'agent.exited', 'failed', 'the agent could not be started: starting -> failed'],
  [
    'initializing',
    'agent.session',
    'running',
    'the system/init message carries the session id: initializing -> running',
  ],
  [
    'initializing',
    'agent.result',
    'initializing',
    'a result before the session is recorded (it decides initializing -> completed)',
  ],
  ...atTheWire('initializing'),
  ['initializing', 'agent.exited', 'initializing', 'the agent exited: plan the final transition and checkpoint it'],
  ['initializing', 'codon.skip', 'initializing', 'skip request: stop the agent, finish as skipped'],
  ['initializing', 'codon.stop', 'initializing', 'force-stop request: stop the agent, finish as failed'],
  ['running', 'agent.assistant', 'running', 'an assistant message: count it and add its usage'],
  ['running', 'agent.result', 'running', 'the result message: the authoritative cost (CodonFinalCostSet)'],
  [
    'running',
    'agent.retrying',
    'running',
    "the agent retrying a failed model call (Claude's system/api_retry): kept until its next message or result",
  ],
  ...atTheWire('running'),
  ['running', 'agent.exited', 'completing-sentinels', 'the agent exited and sentinels are loaded: drain them'],
  ['running', 'agent.exited', 'running', 'the agent exited, no sentinels: plan the final transition and checkpoint it'],
  ['running', 'codon.skip', 'running', 'skip request: stop the agent, finish as skipped'],
  ['running', 'codon.stop', 'running', 'force-stop request: stop the agent, finish as failed'],
  [
    'completing-sentinels',
    'sentinels.drained',
    'completing-sentinels',
    'queues drained: record sentinel stats, checkpoint, finish',
  ],
  [
    'completing-sentinels',
    'sentinels.timedOut',
    'failed',
    'queues did not drain by the deadline: the codon fails with a timeout',
  ],
  ...updates('preparing', ['CheckpointCreated'], 'preparing and starting (rig-setup)'),
  ...updates('starting', ['CheckpointCreated'], 'preparing and starting (rig-setup)'),
  ...updates('starting', ['SentinelStatesUpdated'], 'starting, initializing, running and completing-sentinels'),
  ...updates('initializing', ['SentinelStatesUpdated'], 'starting, initializing, running and completing-sentinels'),
  ...updates(
    'completing-sentinels',
    ['SentinelStatesUpdated'],
    'starting, initializing, running and completing-sentinels',
  ),
  ...updates(
    'running',
    [
      'CostsUpdated',
      'CostsIncremented',
      'AssistantMessageCountUpdated',
      'ExtensionCountUpdated',
      'CodonFinalCostSet',
      'SentinelStatesUpdated',
    ],
    'running',
  ),
];

/** Metadata that satisfies each target's guard. */
function validMetadata(from: string, to: string): CodonTransitionMetadata {
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

const byType: Record<string, Array<EventObject & Record<string, unknown>>> = {
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

/**
 * Valid `CodonTransitioned` events for every edge the seed (and the additions) give the state, and
 * refused ones: a failure without its required metadata, and an edge named from the wrong state.
 */
function codonTransitions(snapshot: AnyMachineSnapshot): Array<EventObject & Record<string, unknown>> {
  const from = snapshot.value as CodonStatus;
  const targets = [...seedTable, ...additions].filter(([s, e]) => s === from && e === CT).map(([, , t]) => t);
  return [
    ...targets.map((to) => ({ type: CT, data: { from, to, metadata: validMetadata(from, to) } })),
    { type: CT, data: { from, to: 'failed', metadata: { exitCode: 1 } } },
    {
      type: CT,
      data: {
        from: from === 'preparing' ? 'starting' : 'preparing',
        to: 'failed',
        metadata: validMetadata(from, 'failed'),
      },
    },
  ];
}

export const codonModel: LifecycleModel = {
  seedTable,
  additions,
  input: {
    runId: 'run-1',
    codonId: 'codon-1',
    startedAt: AT,
    workTree: '/tmp/statewright-work',
    agent: { command: ['claude', '-p'], logPath: 'runs/run-1/codon-1.log' },
  },
  samples: (type, snapshot) =>
    (type === CT ? codonTransitions(snapshot) : (byType[type] ?? [])).map((event) => ({ ...event, at: AT })),
  // Only these decide which events are taken: costs, counters and times just accumulate.
  contextKey: (context: CodonContext) => ({
    sentinels: loadedSentinels(context.codon).length > 0,
    exited: context.agent.exit !== undefined,
    finishing: context.finishing !== undefined,
  }),
};
