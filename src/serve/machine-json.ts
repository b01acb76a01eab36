/** A registered lifecycle as `GET /api/machines` lists it, derived from its machine. */
import type { AnyStateMachine } from 'xstate';
import { z } from 'zod';
import type { Lifecycle } from '../../machines/lifecycle.js';
import {
  eventTypes,
  finalOutcomes,
  finalStateNames,
  leafStates,
  type Outcome,
  stateName,
  transitionTable,
} from '../graph/index.js';

export interface MachineJson {
  readonly name: string;
  readonly version: number;
  readonly summary: string;
  /** The state a new run starts in (its leaf, dotted for nested states). */
  readonly initial: string;
  readonly states: string[];
  readonly terminalStates: string[];
  readonly events: string[];
  /**
   * The events a person may send (the live view's buttons): the lifecycle's `personEvents`, or else
   * every event but the internal ones (`agent.*`, `xstate.*`, `done.*`, `error.*`), with the events
   * its `waitsFor` decides with either way.
   */
  readonly personEvents: string[];
  /** Each final state's outcome (`done`, `failed`, `cancelled`, `skipped`): the lifecycle's `outcomes`, else by its name. */
  readonly outcomes: Record<string, Outcome>;
  /**
   * By state, the events that end or cancel a run resting there (the live view confirms them): every
   * transition the event takes from that state leads to a final state and one of them is not a `done`
   * outcome, or its name says it cancels (`CANCEL`, `ABORT`, `STOP`, `KILL`, `TERMINATE`, `SKIP`, in
   * any case, a word of it: `CANCEL_GRACEFUL`, `codon.stop`). An approval that ends the run in
   * `approved` is an outcome, not a cancellation: it is not listed.
   */
  readonly endingEvents: Record<string, string[]>;
  /**
   * What a run is started with, as JSON Schema (the lifecycle's `input`, what zod says of its
   * input): the live view's "start a run" form. Absent when the lifecycle does not say, or says it
   * with a schema JSON Schema cannot hold: the view then asks for the input as JSON.
   */
  readonly input?: Record<string, unknown>;
}

/** Events the machine and its actors send to themselves, never a person. */
const INTERNAL_EVENT = /^(agent|xstate|done|error)\./;
/** Event names that say they cancel or end the run, whatever the state they lead to. */
const CANCELLING_EVENT = /(^|[._])(cancel|abort|stop|kill|terminate|skip)([._]|$)/i;

export function machineJson(name: string, lifecycle: Lifecycle): MachineJson {
  const { machine, version, summary } = lifecycle;
  const outcomes = finalOutcomes(machine, lifecycle.outcomes);
  return {
    name,
    version,
    summary,
    initial: initialLeaf(machine),
    states: leafStates(machine).map(stateName),
    terminalStates: finalStateNames(machine),
    events: eventTypes(machine),
    personEvents: personEvents(lifecycle),
    outcomes,
    endingEvents: endingEvents(machine, outcomes),
    ...inputSchema(lifecycle),
  };
}

/**
 * The lifecycle's `input` as JSON Schema, as a starter gives it (defaults optional, transforms
 * before they run); what JSON Schema cannot say (a `z.custom`) is left open. A schema that zod
 * cannot turn (one of another zod, say) is left out.
 */
function inputSchema(lifecycle: Lifecycle): { input?: Record<string, unknown> } {
  if (!lifecycle.input) return {};
  try {
    return { input: z.toJSONSchema(lifecycle.input, { io: 'input', unrepresentable: 'any' }) };
  } catch {
    return {};
  }
}

/** The events a person may send to runs of the lifecycle (`MachineJson.personEvents`). */
export function personEvents(lifecycle: Lifecycle): string[] {
  const all = eventTypes(lifecycle.machine);
  const declared = lifecycle.personEvents ?? all.filter((type) => !INTERNAL_EVENT.test(type));
  const deciding = Object.values(lifecycle.waitsFor ?? {}).flatMap((wait) =>
    typeof wait === 'string' ? [] : [wait.approve?.type, wait.deny?.type].filter((t): t is string => !!t),
  );
  return [...new Set([...declared, ...deciding])];
}

function endingEvents(machine: AnyStateMachine, outcomes: Record<string, Outcome>): Record<string, string[]> {
  const final = new Set(finalStateNames(machine));
  const undesired = (target: string) => outcomes[target] !== undefined && outcomes[target] !== 'done';
  const targets = new Map<string, Map<string, string[]>>();
  for (const row of transitionTable(machine)) {
    const byEvent = targets.get(row.source) ?? new Map<string, string[]>();
    targets.set(row.source, byEvent);
    byEvent.set(row.event, [...(byEvent.get(row.event) ?? []), row.target]);
  }
  const ending: Record<string, string[]> = {};
  for (const [state, byEvent] of targets) {
    const events = [...byEvent]
      .filter(
        ([event, to]) =>
          CANCELLING_EVENT.test(event) || (to.every((target) => final.has(target)) && to.some(undesired)),
      )
      .map(([event]) => event);
    if (events.length) ending[state] = events;
  }
  return ending;
}

/** Follows the `initial` of each compound state from the root down to a leaf. */
function initialLeaf(machine: AnyStateMachine): string {
  const path: string[] = [];
  let config = machine.config as {
    initial?: unknown;
    states?: Record<string, { initial?: unknown; states?: unknown }>;
  };
  while (typeof config.initial === 'string' && config.states?.[config.initial]) {
    path.push(config.initial);
    config = config.states[config.initial] as typeof config;
  }
  return path.join('.');
}
