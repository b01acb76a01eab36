import type { AnyMachineSnapshot, EventObject } from 'xstate';
import type { CodonStatus } from '../../../machines/codon/index.js';
import { codonEventSamples, codonTesting, codonTransitionSamples } from '../../../machines/codon/test-events.js';
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

/** `CodonTransitioned` to every edge the seed (and the additions) give the state, and refused ones. */
function codonTransitions(snapshot: AnyMachineSnapshot): Array<EventObject & Record<string, unknown>> {
  const from = snapshot.value as CodonStatus;
  const targets = [...seedTable, ...additions].filter(([s, e]) => s === from && e === CT).map(([, , t]) => t);
  return codonTransitionSamples(from, targets);
}

export const codonModel: LifecycleModel = {
  seedTable,
  additions,
  input: codonTesting.testInputs[0],
  samples: (type, snapshot) =>
    (type === CT ? codonTransitions(snapshot) : (codonEventSamples[type] ?? [])).map((event) => ({ ...event, at: AT })),
  contextKey: codonTesting.testContextKey,
};
