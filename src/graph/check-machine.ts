import type { AnyStateMachine } from 'xstate';
import { CHECK_RULES, type CheckRule } from './check-rules.js';
import { configurationGraph } from './configurations.js';
import { statechart } from './statechart.js';

export { CHECK_RULES, type CheckRule, type RuleDefinition } from './check-rules.js';

/** `error` fails the check; `warning` is said and passes. */
export type CheckSeverity = 'error' | 'warning';

/** One broken rule: which, how bad, where, how a run gets there, and what to do. */
export interface CheckViolation {
  /** The lifecycle's name (its registry name), or the machine's id when checked without one. */
  readonly machine: string;
  readonly rule: CheckRule;
  readonly severity: CheckSeverity;
  /** The state it concerns ('' for an event no state handles). */
  readonly state: string;
  /** How a run gets there from the initial state ("pending -ENQUEUE-> queued"), or the cycle that goes round; '' when nothing reaches it. */
  readonly path: string;
  readonly message: string;
}

export interface CheckOptions {
  /** The lifecycle's name, which violations carry (the machine's id when left out). */
  readonly name?: string;
  /** The event types the lifecycle defines outside the machine (`Lifecycle.events`). */
  readonly events?: readonly string[];
  /** The states the lifecycle says a run waits for a person in (`Lifecycle.waitsFor`), as meta `waitsFor` would. */
  readonly waitsFor?: readonly string[];
  /** Lint rules fail the check too (`Lifecycle.strict`). */
  readonly strict?: boolean;
}

/** Holds one machine to every rule of `CHECK_RULES`; an empty list means it passes, a list of warnings only that it passes with them. */
export function checkMachine(machine: AnyStateMachine, options: CheckOptions = {}): CheckViolation[] {
  const model = statechart(machine);
  const input = {
    machine,
    model,
    graph: configurationGraph(model),
    events: options.events ?? [],
    waitsFor: options.waitsFor ?? [],
  };
  const name = options.name ?? machine.id;
  return (Object.entries(CHECK_RULES) as Array<[CheckRule, (typeof CHECK_RULES)[CheckRule]]>).flatMap(
    ([rule, definition]) =>
      definition.find(input).map(({ undecided, ...finding }) => ({
        machine: name,
        rule,
        severity:
          !undecided && (definition.kind === 'correctness' || options.strict)
            ? ('error' as const)
            : ('warning' as const),
        ...finding,
      })),
  );
}
