import type { AnyStateMachine } from 'xstate';
import { eventWords } from './event-words.js';
import { statechart } from './statechart.js';

/**
 * One arrow of a statechart: from the state that defines a transition (the machine itself, `''`,
 * for a transition on its root) to a state it names, which may be compound, parallel or a history
 * state; a compound target is entered by its start dot, a history target by what it remembers.
 * Transitions between the same two states share one arrow, their labels listed.
 */
export interface ChartTransition {
  /** The defining state's path (`stateName`), `''` for the machine's root. */
  readonly source: string;
  /** The target's path; the source's own for a transition with no target. */
  readonly target: string;
  readonly labels: readonly string[];
  /** The event type each label stands for, in the labels' order (`''` for `always`). */
  readonly events: readonly string[];
  /** No target: the state stays, only actions run. */
  readonly internal: boolean;
}

/** An event as a chart labels it: `always` for an eventless transition, else in words (`eventWords`: "after 20 s"). */
export function chartEventLabel(machine: AnyStateMachine, event: string): string {
  return event === '' ? 'always' : eventWords(machine, event);
}

/**
 * Every transition of the machine as a statechart draws it, from its statechart model
 * (`statechart`), in definition order: each state's own events (XState's delayed, done and actor
 * events among them) and its eventless `always` transitions, the root's included. A guard is
 * written where it chooses between branches of one event; a transition with neither target nor
 * actions (XState's forbidden transition) is a refusal, not an arrow.
 */
export function chartTransitions(machine: AnyStateMachine): ChartTransition[] {
  const chart = statechart(machine);
  const byPair = new Map<
    string,
    { source: string; target: string; labels: string[]; events: string[]; internal: boolean }
  >();
  for (const transition of chart.transitions) {
    if (transition.forbidden) continue;
    const { source, eventType, targets, guard } = transition;
    const branches = chart.transitionsFrom(source).filter((other) => other.eventType === eventType).length;
    const words = chartEventLabel(machine, eventType);
    const label = guard && branches > 1 ? `${words} [${guard.name}]` : words;
    for (const target of targets.length ? targets : [source]) {
      const key = `${source}\u0000${target}`;
      const arrow = byPair.get(key) ?? { source, target, labels: [], events: [], internal: targets.length === 0 };
      if (!arrow.labels.includes(label)) {
        arrow.labels.push(label);
        arrow.events.push(eventType);
      }
      byPair.set(key, arrow);
    }
  }
  return [...byPair.values()];
}

/**
 * Whether a chart draws the machine itself as the outer box, named by its id: when its root
 * defines transitions (`on: { reset: ... }` at the top, a root `after`), whose arrows leave that
 * box, or is parallel, whose regions it holds side by side.
 */
export function drawsRoot(machine: AnyStateMachine, transitions: readonly ChartTransition[]): boolean {
  return machine.root.type === 'parallel' || transitions.some((transition) => transition.source === '');
}
