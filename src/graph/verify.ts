import type { AnyStateMachine } from 'xstate';
import { CHECK_RULES } from './check-rules.js';
import { configurationGraph } from './configurations.js';
import { statechart } from './statechart.js';

/** What is structurally wrong with a machine, if anything. Every list empty means sound. */
export interface VerificationReport {
  readonly machine: string;
  /** States no sequence of events reaches from the initial state. */
  readonly unreachable: string[];
  /** Non-final states a run can rest in with nothing leading out: a run would be stuck there. */
  readonly deadEnds: string[];
  /** Final states that still declare transitions: a finished run could move again. */
  readonly finalWithExits: string[];
  readonly ok: boolean;
}

/** The correctness of a machine's graph, as `check`'s `unreachable` and `no-way-out` rules read it from its configurations. */
export function verifyMachine(machine: AnyStateMachine): VerificationReport {
  const model = statechart(machine);
  const input = { machine, model, graph: configurationGraph(model), events: [], waitsFor: [] };
  const unreachable = CHECK_RULES.unreachable.find(input).map((f) => f.state);
  const deadEnds = CHECK_RULES['no-way-out'].find(input).map((f) => f.state);
  const finalWithExits = [...model.states.values()]
    .filter((s) => s.kind === 'final' && model.transitionsFrom(s.path).some((t) => !t.forbidden))
    .map((s) => s.path);
  return {
    machine: machine.id,
    unreachable,
    deadEnds,
    finalWithExits,
    ok: unreachable.length + deadEnds.length + finalWithExits.length === 0,
  };
}
