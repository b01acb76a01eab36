/** A registered lifecycle as `GET /api/machines` lists it, derived from its machine. */
import type { AnyStateMachine } from 'xstate';
import type { Lifecycle } from '../../machines/lifecycle.js';
import { eventTypes, finalStateNames, leafStates, stateName } from '../graph/index.js';

export interface MachineJson {
  readonly name: string;
  readonly version: number;
  readonly summary: string;
  /** The state a new run starts in (its leaf, dotted for nested states). */
  readonly initial: string;
  readonly states: string[];
  readonly terminalStates: string[];
  readonly events: string[];
}

export function machineJson(name: string, lifecycle: Lifecycle): MachineJson {
  const { machine, version, summary } = lifecycle;
  return {
    name,
    version,
    summary,
    initial: initialLeaf(machine),
    states: leafStates(machine).map(stateName),
    terminalStates: finalStateNames(machine),
    events: eventTypes(machine),
  };
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
