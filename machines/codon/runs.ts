/**
 * The run level of Hankweave and the seed's event protocol (seed-systems.md §1.1): runs of codons,
 * the current run, the initial checkpoint, and a cost cache, changed only by the 14 seed events.
 *
 * A reducer, not a machine: the source has no transition table for runs (their status changes only
 * by the Run* events), and the seed's state is one document holding every run, the current run and
 * costs that span runs. What an event may do to a codon record is the codon machine's rule, asked of
 * the machine itself (`codonAccepts`), and records are built by the same functions the machine uses.
 *
 * Pure: `applyCodonRunEvent(state, event)` returns a new state and never changes its input. An
 * update that the record's state does not take (a cost event outside running) changes nothing and
 * returns the same state object, as the source ignores it. Events that name a record that does not
 * exist, or a transition the codon does not have, throw typed errors and change nothing.
 *
 * Under the runtime the run level is not this reducer's state: runs are hosted `codon-run` runs and
 * codon attempts hosted `codon` runs, and the document is fed from their committed steps
 * (see machines/codon-run/ and src/codon/state-manager.ts). This reducer stays as the seed's pure
 * semantics, for direct use, and as the oracle the state manager's document is tested against.
 */
import { z } from 'zod';
import { InvalidTransitionError } from '../../src/graph/invalid-transition-error.js';
import { metadataErrorFromIssues } from '../../src/graph/metadata-guard.js';
import { RecordReferenceError } from './errors.js';
import type { CodonSeedEvent } from './events.js';
import type { CodonContext } from './context.js';
import { codonMachine } from './machine.js';
import {
  applyCodonUpdate,
  crashedRecord,
  createCodonRecord,
  enterCodonState,
  getCodonCost,
  isoTime,
} from './record.js';
import { codon as codonLifecycle } from './status.js';
import { codonEventDataSchemas, codonStatusSchema, loopContextSchema } from './schemas.js';
import type { CodonExecution, CodonStatus, CodonTransitionMetadata, LoopContext } from './types.js';

export type RunStatus = 'running' | 'completed' | 'failed' | 'crashed';

export type StartingConditions =
  | { type: 'fresh'; initialCheckpointSha?: string }
  | {
      type: 'continuation';
      source: { runId: string; afterCodon: string | null; checkpointSha: string };
      reason?: 'retry' | 'rollback' | 'continue';
    };

export interface CodonRun {
  runId: string;
  runFolder: string;
  gitBranch: string;
  startingConditions: StartingConditions;
  /** In start order; a retried codon has one record per attempt, the latest last. */
  codons: CodonExecution[];
  status: RunStatus;
  startTime: string;
  endTime?: string;
  /** The process that owns the run, for crash detection. */
  serverPid: number;
}

/** Costs kept current event by event, so the two questions asked on hot paths never scan the runs. */
export interface CostCache {
  total: number;
  currentRun: number;
}

export interface CodonRunsState {
  /** Newest first. */
  runs: CodonRun[];
  currentRunId: string | null;
  initialCheckpoint?: string;
  costs: CostCache;
}

const nonBlank = z.string().refine((value) => value.trim().length > 0, { error: 'must not be blank' });
const runAddress = { runId: nonBlank };
const codonAddress = { runId: nonBlank, codonId: nonBlank };

export const startingConditionsSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('fresh'), initialCheckpointSha: z.string().optional() }),
  z.object({
    type: z.literal('continuation'),
    source: z.object({ runId: nonBlank, afterCodon: z.string().nullable(), checkpointSha: nonBlank }),
    reason: z.enum(['retry', 'rollback', 'continue']).optional(),
  }),
]);

/** The payload (`data`) of each of the 14 events, addressed as the run level needs. */
export const codonRunEventSchemas = {
  RunStarted: z.object({
    ...runAddress,
    runFolder: z.string(),
    gitBranch: z.string(),
    startingConditions: startingConditionsSchema,
    serverPid: z.number().int(),
  }),
  RunCompleted: z.object(runAddress),
  RunFailed: z.object(runAddress),
  RunCrashed: z.object({
    ...runAddress,
    detectedAt: z.iso.datetime(),
    lastCodonStatus: z.union([codonStatusSchema, z.literal('unknown')]),
  }),
  CodonStarted: z.object({ ...codonAddress, loopContext: loopContextSchema.optional() }),
  InitialCheckpointSet: z.object({ sha: nonBlank }),
  ...(Object.fromEntries(
    Object.entries(codonEventDataSchemas).map(([type, schema]) => [type, schema.extend(codonAddress)]),
  ) as unknown as Record<keyof typeof codonEventDataSchemas, z.ZodType>),
};

interface Stamped {
  at?: number;
}
export type CodonRunEvent =
  | ({
      type: 'RunStarted';
      data: {
        runId: string;
        runFolder: string;
        gitBranch: string;
        startingConditions: StartingConditions;
        serverPid: number;
      };
    } & Stamped)
  | ({ type: 'RunCompleted'; data: { runId: string } } & Stamped)
  | ({ type: 'RunFailed'; data: { runId: string } } & Stamped)
  | ({
      type: 'RunCrashed';
      data: { runId: string; detectedAt: string; lastCodonStatus: CodonStatus | 'unknown' };
    } & Stamped)
  | ({ type: 'CodonStarted'; data: { runId: string; codonId: string; loopContext?: LoopContext } } & Stamped)
  | ({ type: 'InitialCheckpointSet'; data: { sha: string } } & Stamped)
  | (CodonSeedEvent & { data: { runId: string; codonId: string } });

export const CODON_RUN_EVENT_TYPES = Object.keys(codonRunEventSchemas) as Array<CodonRunEvent['type']>;

export function emptyCodonRunsState(): CodonRunsState {
  return { runs: [], currentRunId: null, costs: { total: 0, currentRun: 0 } };
}

/** The current run's cost: O(1), from the cache. */
export function getCurrentRunCost(state: CodonRunsState): number {
  return state.costs.currentRun;
}

/** The cost of every run: O(1), from the cache. */
export function getTotalCost(state: CodonRunsState): number {
  return state.costs.total;
}

/** The cache computed from scratch; what the incremental cache must equal (use it after loading a state). */
export function rebuildCostCache(state: Pick<CodonRunsState, 'runs' | 'currentRunId'>): CostCache {
  let total = 0;
  let currentRun = 0;
  for (const run of state.runs) {
    const cost = run.codons.reduce((sum, codon) => sum + getCodonCost(codon), 0);
    total += cost;
    if (run.runId === state.currentRunId) currentRun = cost;
  }
  return { total, currentRun };
}

/**
 * Whether the codon machine, in the record's state, takes `event`: the one rule for which updates
 * apply where. Asked of the machine with the record as its context.
 */
export function codonAccepts(record: CodonExecution, event: CodonSeedEvent): boolean {
  if (codonLifecycle.isTerminal(record.status)) return false;
  const context = { runId: '', config: {}, codon: record, agent: {} } as unknown as CodonContext;
  return codonMachine.resolveState({ value: record.status, context }).can(event);
}

/** Applies one seed event. Throws on a bad payload, an unknown record or an invalid transition. */
export function applyCodonRunEvent(state: CodonRunsState, event: CodonRunEvent): CodonRunsState {
  const schema = codonRunEventSchemas[event.type] as z.ZodType | undefined;
  if (!schema)
    throw new InvalidTransitionError(
      '(run level)',
      String(event.type),
      `Unknown event type '${String(event.type)}': expected one of ${CODON_RUN_EVENT_TYPES.join(', ')}`,
    );
  const parsed = schema.safeParse(event.data);
  if (!parsed.success) throw metadataErrorFromIssues(event.type, event.data, parsed.error.issues);

  switch (event.type) {
    case 'RunStarted':
      return runStarted(state, event);
    case 'RunCompleted':
    case 'RunFailed':
      return runEnded(
        state,
        event.type,
        event.data.runId,
        event.type === 'RunCompleted' ? 'completed' : 'failed',
        event.at,
      );
    case 'RunCrashed':
      return runCrashed(state, event.data.runId, event.data.detectedAt);
    case 'CodonStarted':
      return codonStarted(state, event);
    case 'InitialCheckpointSet':
      return { ...state, initialCheckpoint: event.data.sha };
    case 'CodonTransitioned':
      return codonTransitioned(state, event);
    default:
      return codonUpdated(state, event);
  }
}

function runIndex(state: CodonRunsState, eventType: string, runId: string): number {
  const index = state.runs.findIndex((run) => run.runId === runId);
  if (index < 0)
    throw new RecordReferenceError(eventType, runId, undefined, `no run '${runId}'. Send RunStarted for it first.`);
  return index;
}

/** Replaces run `index` and keeps the cost cache in step with the change of its codons' costs. */
function withRun(state: CodonRunsState, index: number, run: CodonRun, costDelta: number): CodonRunsState {
  const runs = state.runs.slice();
  runs[index] = run;
  const costs =
    costDelta === 0
      ? state.costs
      : {
          total: state.costs.total + costDelta,
          currentRun: state.costs.currentRun + (run.runId === state.currentRunId ? costDelta : 0),
        };
  return { ...state, runs, costs };
}

function withCodon(state: CodonRunsState, runIdx: number, codonIdx: number, codon: CodonExecution): CodonRunsState {
  const run = state.runs[runIdx]!;
  const before = run.codons[codonIdx]!;
  const codons = run.codons.slice();
  codons[codonIdx] = codon;
  return withRun(state, runIdx, { ...run, codons }, getCodonCost(codon) - getCodonCost(before));
}

function runStarted(state: CodonRunsState, event: Extract<CodonRunEvent, { type: 'RunStarted' }>): CodonRunsState {
  const { runId, runFolder, gitBranch, startingConditions, serverPid } = event.data;
  if (state.runs.some((run) => run.runId === runId)) {
    throw new RecordReferenceError(
      'RunStarted',
      runId,
      undefined,
      `run '${runId}' already exists. Start a new run under a new id.`,
    );
  }
  const run: CodonRun = {
    runId,
    runFolder,
    gitBranch,
    startingConditions,
    codons: [],
    status: 'running',
    startTime: isoTime(event.at, 'RunStarted'),
    serverPid,
  };
  return { ...state, runs: [run, ...state.runs], currentRunId: runId, costs: { ...state.costs, currentRun: 0 } };
}

function runningRun(state: CodonRunsState, eventType: string, runId: string): number {
  const index = runIndex(state, eventType, runId);
  const status = state.runs[index]!.status;
  if (status !== 'running') {
    throw new InvalidTransitionError(
      status,
      eventType,
      `Invalid transition: run '${runId}' is ${status}; ${eventType} applies only to a running run`,
    );
  }
  return index;
}

function runEnded(
  state: CodonRunsState,
  eventType: string,
  runId: string,
  status: 'completed' | 'failed',
  at: number | undefined,
): CodonRunsState {
  const index = runningRun(state, eventType, runId);
  const ended = withRun(state, index, { ...state.runs[index]!, status, endTime: isoTime(at, eventType) }, 0);
  // As the source: the run is no longer current, whichever run was.
  return { ...ended, currentRunId: null, costs: { ...ended.costs, currentRun: 0 } };
}

/** The run is marked crashed and its active codon fails as "Server crashed"; the current run stays (seed). */
function runCrashed(state: CodonRunsState, runId: string, detectedAt: string): CodonRunsState {
  const index = runningRun(state, 'RunCrashed', runId);
  const at = Date.parse(detectedAt);
  const run = state.runs[index]!;
  let costDelta = 0;
  const codons = run.codons.map((codon) => {
    if (codonLifecycle.isTerminal(codon.status)) return codon;
    const failed = crashedRecord(codon, at);
    costDelta += getCodonCost(failed) - getCodonCost(codon);
    return failed;
  });
  return withRun(state, index, { ...run, codons, status: 'crashed', endTime: isoTime(at, 'RunCrashed') }, costDelta);
}

function codonStarted(state: CodonRunsState, event: Extract<CodonRunEvent, { type: 'CodonStarted' }>): CodonRunsState {
  const { runId, codonId, loopContext } = event.data;
  const index = runningRun(state, 'CodonStarted', runId);
  const run = state.runs[index]!;
  const active = run.codons.find((codon) => codon.codonId === codonId && !codonLifecycle.isTerminal(codon.status));
  if (active) {
    throw new RecordReferenceError(
      'CodonStarted',
      runId,
      codonId,
      `codon '${codonId}' is still ${active.status} in run '${runId}'; it can start again once it has ended.`,
    );
  }
  // A retry appends: the earlier attempt stays as history.
  const codons = [...run.codons, createCodonRecord(codonId, event.at, loopContext)];
  return withRun(state, index, { ...run, codons }, 0);
}

/** The latest record of the codon (after a retry, the new attempt, never the stale one). */
function latestCodon(state: CodonRunsState, eventType: string, runId: string, codonId: string): [number, number] {
  const runIdx = runIndex(state, eventType, runId);
  const codonIdx = state.runs[runIdx]!.codons.findLastIndex((codon) => codon.codonId === codonId);
  if (codonIdx < 0)
    throw new RecordReferenceError(
      eventType,
      runId,
      codonId,
      `no codon '${codonId}' in run '${runId}'. Send CodonStarted first.`,
    );
  return [runIdx, codonIdx];
}

function codonTransitioned(
  state: CodonRunsState,
  event: Extract<CodonSeedEvent, { type: 'CodonTransitioned' }> & { data: { runId: string; codonId: string } },
): CodonRunsState {
  const { runId, codonId, from, to, metadata } = event.data;
  codonLifecycle.validateTransition(from, to, metadata);
  const [runIdx, codonIdx] = latestCodon(state, 'CodonTransitioned', runId, codonId);
  const record = state.runs[runIdx]!.codons[codonIdx]!;
  if (record.status !== from) {
    throw new InvalidTransitionError(
      record.status,
      'CodonTransitioned',
      `Invalid transition from ${record.status} to ${to}: the event says it leaves '${from}'`,
    );
  }
  return withCodon(state, runIdx, codonIdx, enterCodonState(record, to, metadata as CodonTransitionMetadata, event.at));
}

function codonUpdated(
  state: CodonRunsState,
  event: Exclude<CodonSeedEvent, { type: 'CodonTransitioned' }> & { data: { runId: string; codonId: string } },
): CodonRunsState {
  const [runIdx, codonIdx] = latestCodon(state, event.type, event.data.runId, event.data.codonId);
  const record = state.runs[runIdx]!.codons[codonIdx]!;
  if (!appliesTo(record, event)) return state;
  return withCodon(state, runIdx, codonIdx, applyCodonUpdate(record, event));
}

/**
 * An active record takes what its state in the codon machine takes. A terminal record, which the
 * machine no longer holds, takes only what the source lets it: the checkpoint of its own ending,
 * a rig checkpoint it already has, and a message count on a skipped record that has one.
 */
function appliesTo(record: CodonExecution, event: Exclude<CodonSeedEvent, { type: 'CodonTransitioned' }>): boolean {
  if (!codonLifecycle.isTerminal(record.status)) return codonAccepts(record, event);
  if (event.type === 'AssistantMessageCountUpdated')
    return record.status === 'skipped' && record.assistantMessageCount !== undefined;
  if (event.type !== 'CheckpointCreated') return false;
  switch (event.data.checkpointType) {
    case 'rig-setup':
      return 'rigSetupCheckpoint' in record && record.rigSetupCheckpoint !== undefined;
    case 'completed':
      return record.status === 'completed';
    case 'error':
      return record.status === 'failed';
    case 'skipped':
      return record.status === 'skipped';
  }
}
