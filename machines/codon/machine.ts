/**
 * The codon lifecycle of Hankweave (seed: hankweave-codon-state-machine.txt): one agent step inside
 * a run, from rig setup through the agent process and sentinel draining to a git checkpoint.
 *
 * The states are the seed's eight, flat, so the one-step graph reads exactly like `CodonTransitions`.
 * The seed's `CodonTransitioned { from, to, metadata }` drives every edge: each edge is guarded by
 * the target's metadata schema and by the edge the event names. The agent actor's reports drive the
 * edges they mean (`agent.spawned`: starting -> initializing, `agent.session`: initializing ->
 * running), and the seed's update events change the record in the states where the source applies
 * them. The context's `codon` is the seed's per-state record.
 *
 * The agent is spawned (not invoked) on entering starting, because it must outlive three states;
 * it stops with the machine or when it exits. Once it has exited the machine plans the final
 * transition (`decideFinalTransition`) and spawns the checkpoint actor, which commits and then sends
 * that transition with the SHA: the checkpoint always comes before the final state.
 */
import { assign, enqueueActions, fromCallback, setup, spawnChild, stopChild, type EventObject } from 'xstate';
import { agentRetrying } from '../agent-retry.js';
import { withPartialMessages } from '../claude-command.js';
import type { AgentInput, CheckpointInput, RigSetupInput, SentinelDrainInput } from './actor-inputs.js';
import { parseCodonInput } from './config.js';
import type { CodonContext } from './context.js';
import type { CodonEvent, CodonEventOf, CodonSeedEvent, CodonTransitionedEvent } from './events.js';
import { decideFinalTransition } from './final-status.js';
import { MissingTimestampError } from './errors.js';
import {
  agentSessionGuard,
  agentSpawnedGuard,
  codonGuards,
  drainTimedOutGuard,
  drainTimedOutMetadata,
  rigCheckpointOnly,
  spawnedMetadata,
  spawnFailedGuard,
  spawnFailedMetadata,
  transitionsFrom,
  update,
} from './guards.js';
import {
  applyCodonUpdate,
  createCodonRecord,
  enterCodonState,
  loadedSentinels,
  addTokens,
  tokensFromUsage,
  withAssistantMessage,
} from './record.js';
import type { ActiveCodonStatus, CodonExecution, RunningCodon } from './types.js';

/** The agent's stop message: terminate the process, keep reporting until it exits. */
export const AGENT_STOP = { type: 'agent.stop' } as const;

/**
 * Claude Code's synthetic message when an API request times out: the agent is stopped and the codon
 * fails with a timeout. Older versions wrote exactly `API Error: Request timed out.`; 2.1.328 writes
 * `Request timed out. If the API is slow to answer, ... set API_TIMEOUT_MS above 2000.` (its own
 * message, `"model":"<synthetic>"`, which the agent actor reports as `synthetic`).
 */
const API_TIMEOUT_TEXT = 'API Error: Request timed out.';
const API_TIMEOUT_PREFIX = 'Request timed out.';

const isApiTimeout = ({ text, synthetic }: CodonEventOf<'agent.assistant'>) =>
  text.trim() === API_TIMEOUT_TEXT || (synthetic === true && text.trimStart().startsWith(API_TIMEOUT_PREFIX));

function identity(context: CodonContext) {
  return {
    workTree: context.config.workTree,
    runId: context.runId,
    codonId: context.codon.codonId,
    attempt: `${context.runId}/${context.codon.codonId}/${context.codon.startTime}`,
  };
}

/**
 * The agent is spawned on entering starting, before any pid is known, and XState restores a child
 * with the input it was first given: a restored agent finds its process through the pid file beside
 * its log, and the recovery hook (recover.ts) decides whether the codon goes on at all.
 */
function agentInput(context: CodonContext): AgentInput {
  const { agent, workTree, pricing, wire, budgetUsd, stallTimeoutMs } = context.config;
  // A Claude command line is asked for each message's final usage, which the budget is checked on.
  return {
    ...agent,
    command: withPartialMessages(agent.command),
    cwd: agent.cwd ?? workTree,
    ...(pricing && { pricing }),
    ...(wire && { wire: budgetUsd !== undefined ? { budgetUsd } : {} }),
    ...(stallTimeoutMs !== undefined && { stallMs: stallTimeoutMs }),
  };
}

/** A cost in USD as a person reads it in a reason. */
const usd = (amount: number) => `${amount.toFixed(4)} USD`;

/** Whether the codon's running cost has reached its budget (a success that crossed it is flagged). */
function overBudget(context: CodonContext): boolean {
  const { budgetUsd } = context.config;
  const codon = context.codon;
  return budgetUsd !== undefined && 'currentCost' in codon && codon.currentCost >= budgetUsd;
}

/** Sends the agent its stop message, if there is an agent to tell. */
function stopAgent(enqueue: { sendTo: (to: string, event: EventObject) => void }, self: { getSnapshot(): any }) {
  if (self.getSnapshot()?.children?.agent) enqueue.sendTo('agent', AGENT_STOP);
}

export const codonMachine = setup({
  types: {
    context: {} as CodonContext,
    events: {} as CodonEvent,
    input: {} as unknown,
    output: {} as CodonExecution,
  },
  actors: {
    rigSetup: fromCallback<EventObject, RigSetupInput>(() => {}),
    agent: fromCallback<EventObject, AgentInput>(() => {}),
    codonCheckpoint: fromCallback<EventObject, CheckpointInput>(() => {}),
    sentinelDrain: fromCallback<EventObject, SentinelDrainInput>(() => {}),
  },
  guards: codonGuards,
  actions: {
    enterNamedState: assign({
      codon: ({ context, event }) => {
        const { to, metadata } = (event as CodonTransitionedEvent).data;
        return enterCodonState(context.codon, to, metadata, event.at);
      },
    }),
    applyUpdate: assign({
      codon: ({ context, event }) =>
        applyCodonUpdate(context.codon, event as Exclude<CodonSeedEvent, CodonTransitionedEvent>),
    }),
    /** Past the budget, the agent is told to stop; the codon then completes with `budgetExceeded`. */
    checkBudget: enqueueActions(({ context, enqueue, self }) => {
      const { budgetUsd } = context.config;
      const codon = context.codon;
      if (budgetUsd === undefined || codon.status !== 'running' || codon.currentCost < budgetUsd) return;
      if (context.agent.stop || context.agent.exit) return;
      enqueue.assign({
        agent: {
          ...context.agent,
          stop: {
            kind: 'budget',
            reason: `cost ${usd(codon.currentCost)} reached the budget of ${budgetUsd} USD${
              context.agent.wire ? ` (${context.agent.wire.calls} model calls metered at the wire)` : ''
            }`,
            during: 'running',
          },
        },
      });
      stopAgent(enqueue, self);
    }),
    /**
     * A model call metered at the wire: counted, and the running cost is the larger of the wire's
     * and the agent's own reports (Codex reports nothing before its turn ends; Claude each message).
     */
    recordMetered: assign(({ context, event }) => {
      const { costUsd, usage } = event as CodonEventOf<'agent.metered'>;
      const { upstream: _recovered, ...known } = context.agent;
      const before = known.wire ?? { calls: 0, costUsd: 0, tokens: tokensFromUsage(undefined) };
      const wire = {
        calls: before.calls + 1,
        costUsd: before.costUsd + costUsd,
        tokens: addTokens(before.tokens, tokensFromUsage(usage)),
      };
      const agent = { ...known, wire };
      const codon = context.codon;
      if (codon.status !== 'running' || wire.costUsd <= codon.currentCost) return { agent };
      return { agent, codon: { ...codon, currentCost: wire.costUsd, currentTokens: wire.tokens } };
    }),
    /** The upstream failed at the wire: kept; too many in a row stop the agent, failing the codon with the cause. */
    recordUpstreamFailure: enqueueActions(({ context, event, enqueue, self }) => {
      const { cause, failures } = event as CodonEventOf<'agent.upstreamFailed'>;
      enqueue.assign({ agent: { ...context.agent, upstream: { cause, failures } } });
      const bound = context.config.upstreamFailures;
      if (failures < bound || context.agent.stop || context.agent.exit) return;
      const during = context.codon.status as ActiveCodonStatus;
      const reason = `${cause} (${failures} model calls in a row failed at statewright's metering proxy)`;
      enqueue.assign({
        agent: { ...context.agent, upstream: { cause, failures }, stop: { kind: 'upstream', reason, during } },
      });
      stopAgent(enqueue, self);
    }),
    /** The agent wrote nothing for the codon's stall bound: stopped, the codon fails with a timeout. */
    recordStall: enqueueActions(({ context, event, enqueue, self }) => {
      if (context.agent.stop || context.agent.exit) return;
      const { silentMs } = event as CodonEventOf<'agent.stalled'>;
      const reason = `The agent wrote nothing for ${Math.round(silentMs / 1000)} s (stallTimeoutMs ${context.config.stallTimeoutMs})`;
      const during = context.codon.status as ActiveCodonStatus;
      enqueue.assign({ agent: { ...context.agent, stop: { kind: 'timeout', reason, during } } });
      stopAgent(enqueue, self);
    }),
    recordRetry: assign({
      agent: ({ context, event }) => {
        const retry = event as CodonEventOf<'agent.retrying'>;
        return {
          ...context.agent,
          retrying: agentRetrying(context.agent.retrying, { ...retry, at: requireAt(retry) }),
        };
      },
    }),
    recordAssistantMessage: enqueueActions(({ context, event, enqueue, self }) => {
      const message = event as CodonEventOf<'agent.assistant'>;
      // Claude's own messages (an API error, a timeout) are no model call: not counted, nothing spent.
      if (!message.synthetic) {
        const { retrying: _over, ...agent } = context.agent;
        enqueue.assign({
          codon: withAssistantMessage(context.codon as RunningCodon, message.usage, context.config.pricing),
          agent,
        });
      }
      if (isApiTimeout(message) && !context.agent.stop) {
        enqueue.assign({
          agent: {
            ...context.agent,
            stop: { kind: 'timeout', reason: `The API request timed out (${message.text.trim()})`, during: 'running' },
          },
        });
        stopAgent(enqueue, self);
      }
    }),
    recordResult: assign(({ context, event }) => {
      const { costUsd, usage, isError, result: text } = event as CodonEventOf<'agent.result'>;
      // An error result's text is the agent's own account (Claude's API error): the failure reason quotes it.
      const { retrying: _over, ...known } = context.agent;
      const agent = { ...known, result: { isError, ...(isError && text && { text }) } };
      if (context.codon.status !== 'running') return { agent };
      const codon = context.codon;
      return {
        agent,
        codon: {
          ...codon,
          currentCost: costUsd ?? codon.currentCost,
          currentTokens: usage ? tokensFromUsage(usage) : codon.currentTokens,
        },
      };
    }),
    recordExit: assign({
      agent: ({ context, event }) => {
        const { code, signal, reason } = event as CodonEventOf<'agent.exited'>;
        return { ...context.agent, exit: { code, signal, reason } };
      },
    }),
    stopAgentChild: stopChild('agent'),
    /** Plans the final transition from the current state and spawns the checkpoint actor to carry it out. */
    finish: enqueueActions(({ context, enqueue }) => {
      if (!context.agent.exit || context.finishing) return;
      const from = context.codon.status as ActiveCodonStatus;
      const plan = decideFinalTransition(from, {
        exit: context.agent.exit,
        ...(context.agent.result && { result: context.agent.result }),
        ...(context.agent.stop && { stop: context.agent.stop }),
        ...(overBudget(context) && { overBudget: true }),
        ...(context.agent.upstream && { upstream: context.agent.upstream.cause }),
      });
      enqueue.assign({ finishing: plan });
      enqueue(spawnChild('codonCheckpoint', { id: 'checkpoint', input: { ...identity(context), transition: plan } }));
    }),
    requestStop: enqueueActions(({ context, event, enqueue, self }) => {
      const { type, reason } = event as CodonEventOf<'codon.skip' | 'codon.stop'>;
      const kind = type === 'codon.skip' ? 'skip' : 'force';
      // A force-stop overrides a pending skip; nothing overrides a force-stop.
      if (context.agent.stop?.kind === 'force' || (kind === 'skip' && context.agent.stop)) return;
      const during = context.codon.status as ActiveCodonStatus;
      enqueue.assign({ agent: { ...context.agent, stop: { kind, reason: reason ?? `${kind} requested`, during } } });
      stopAgent(enqueue, self);
    }),
    recordDrainedSentinels: assign({
      codon: ({ context, event }) => {
        const { sentinelStates, totalCost } = event as CodonEventOf<'sentinels.drained' | 'sentinels.timedOut'>;
        return applyCodonUpdate(context.codon, { type: 'SentinelStatesUpdated', data: { sentinelStates, totalCost } });
      },
    }),
    enterCompletingSentinels: assign({
      codon: ({ context }) => enterCodonState(context.codon, 'completing-sentinels'),
    }),
    enterFailed: assign({
      codon: ({ context, event }) =>
        enterCodonState(
          context.codon,
          'failed',
          drainTimedOutMetadata(event as CodonEventOf<'sentinels.timedOut'>, context),
          event.at,
        ),
    }),
    setDrainDeadline: assign({
      drainDeadline: ({ context, event }) => requireAt(event) + context.config.drainTimeoutMs,
    }),
  },
}).createMachine({
  id: 'codon',
  initial: 'preparing',
  context: ({ input }) => {
    const config = parseCodonInput(input);
    return {
      runId: config.runId,
      config,
      codon: createCodonRecord(config.codonId, config.startedAt, config.loopContext),
      agent: {},
    };
  },
  output: ({ context }) => context.codon,
  states: {
    /** Rig setup: copy files, run commands, commit the rig checkpoint. */
    preparing: {
      invoke: { src: 'rigSetup', input: ({ context }) => ({ ...identity(context), operations: context.config.rig }) },
      on: {
        CodonTransitioned: transitionsFrom('preparing', 'starting', 'failed', 'skipped'),
        CheckpointCreated: update('CheckpointCreated', 'preparing', rigCheckpointOnly),
      },
    },
    /** Spawning the agent process. */
    starting: {
      meta: {
        waitsFor: 'the agent process, spawned on entering starting: it reports its spawn, session, messages and exit',
      },
      entry: spawnChild('agent', { id: 'agent', input: ({ context }) => agentInput(context) }),
      on: {
        CodonTransitioned: transitionsFrom('starting', 'initializing', 'failed', 'skipped'),
        'agent.spawned': {
          target: 'initializing',
          guard: agentSpawnedGuard,
          actions: assign({
            codon: ({ context, event }) =>
              enterCodonState(
                context.codon,
                'initializing',
                spawnedMetadata(event as CodonEventOf<'agent.spawned'>, context),
              ),
          }),
        },
        'agent.exited': {
          target: 'failed',
          guard: spawnFailedGuard,
          actions: assign({
            codon: ({ context, event }) =>
              enterCodonState(
                context.codon,
                'failed',
                spawnFailedMetadata(event as CodonEventOf<'agent.exited'>),
                event.at,
              ),
          }),
        },
        SentinelStatesUpdated: update('SentinelStatesUpdated', 'starting'),
        CheckpointCreated: update('CheckpointCreated', 'starting', rigCheckpointOnly),
      },
    },
    /** The process runs; waiting for its session id. */
    initializing: {
      meta: {
        waitsFor: 'the agent process, spawned on entering starting: it reports its spawn, session, messages and exit',
      },
      on: {
        CodonTransitioned: transitionsFrom('initializing', 'running', 'completed', 'failed', 'skipped'),
        'agent.session': {
          target: 'running',
          guard: agentSessionGuard,
          actions: assign({
            codon: ({ context, event }) =>
              enterCodonState(context.codon, 'running', {
                claudeSessionId: (event as CodonEventOf<'agent.session'>).sessionId,
              }),
          }),
        },
        'agent.result': { actions: 'recordResult' },
        'agent.metered': { actions: 'recordMetered' },
        'agent.upstreamFailed': { actions: 'recordUpstreamFailure' },
        'agent.stalled': { actions: 'recordStall' },
        'agent.exited': { guard: 'agentAlive', actions: ['recordExit', 'stopAgentChild', 'finish'] },
        'codon.skip': { guard: 'agentAlive', actions: 'requestStop' },
        'codon.stop': { guard: 'agentAlive', actions: 'requestStop' },
        SentinelStatesUpdated: update('SentinelStatesUpdated', 'initializing'),
      },
    },
    /** The agent works: costs, tokens and messages accrue. */
    running: {
      meta: {
        waitsFor: 'the agent process, spawned on entering starting: it reports its spawn, session, messages and exit',
      },
      on: {
        CodonTransitioned: transitionsFrom('running', 'completing-sentinels', 'completed', 'failed', 'skipped'),
        'agent.assistant': { actions: ['recordAssistantMessage', 'checkBudget'] },
        'agent.retrying': { actions: 'recordRetry' },
        'agent.metered': { actions: ['recordMetered', 'checkBudget'] },
        'agent.upstreamFailed': { actions: 'recordUpstreamFailure' },
        'agent.stalled': { actions: 'recordStall' },
        'agent.result': { actions: ['recordResult', 'checkBudget'] },
        'agent.exited': [
          {
            target: 'completing-sentinels',
            guard: 'exitWithSentinels',
            actions: ['recordExit', 'stopAgentChild', 'enterCompletingSentinels'],
          },
          { guard: 'exitWithoutSentinels', actions: ['recordExit', 'stopAgentChild', 'finish'] },
        ],
        'codon.skip': { guard: 'agentAlive', actions: 'requestStop' },
        'codon.stop': { guard: 'agentAlive', actions: 'requestStop' },
        CostsUpdated: update('CostsUpdated', 'running'),
        CostsIncremented: update('CostsIncremented', 'running'),
        AssistantMessageCountUpdated: update('AssistantMessageCountUpdated', 'running'),
        ExtensionCountUpdated: update('ExtensionCountUpdated', 'running'),
        CodonFinalCostSet: update('CodonFinalCostSet', 'running'),
        SentinelStatesUpdated: update('SentinelStatesUpdated', 'running'),
      },
    },
    /** The agent is done; sentinel queues drain before the checkpoint and the final state. */
    'completing-sentinels': {
      // The agent's part is over here, however the codon arrived (an external CodonTransitioned too).
      entry: ['stopAgentChild', 'setDrainDeadline'],
      invoke: {
        src: 'sentinelDrain',
        input: ({ context }) => ({
          sentinels: loadedSentinels(context.codon),
          deadline: context.drainDeadline!,
          timeoutMs: context.config.drainTimeoutMs,
        }),
      },
      on: {
        CodonTransitioned: transitionsFrom('completing-sentinels', 'completed', 'failed', 'skipped'),
        'sentinels.drained': { guard: 'notFinishing', actions: ['recordDrainedSentinels', 'finish'] },
        'sentinels.timedOut': {
          target: 'failed',
          guard: drainTimedOutGuard,
          actions: ['recordDrainedSentinels', 'enterFailed'],
        },
        SentinelStatesUpdated: update('SentinelStatesUpdated', 'completing-sentinels'),
      },
    },
    completed: { type: 'final' },
    failed: { type: 'final' },
    skipped: { type: 'final' },
  },
});

function requireAt(event: { type: string; at?: number }): number {
  if (typeof event.at !== 'number' || !Number.isFinite(event.at)) throw new MissingTimestampError(event.type);
  return event.at;
}
