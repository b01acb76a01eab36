/**
 * What in a machine moves its runs only while a host holds them: the actors it names (agents,
 * checks, timers), those it invokes or spawns from inline logic, and its `after` delays. A run of
 * such a machine started by a process that exits at once (the CLI with no serve) would sit in its
 * first state for ever, its lease held by a dead process: the CLI refuses it and says why.
 */
import type { AnyStateMachine } from 'xstate';
import { statechart } from './statechart.js';
import { spawnedLogic } from './xstate-internals.js';

/** Why runs of `machine` need a host, as a person reads it ("their `after` delays (after 30 days in 'open') fire only in a host"), or undefined when nothing does. */
export function hostNeeds(machine: AnyStateMachine): string | undefined {
  if (Object.keys((machine.implementations.actors ?? {}) as object).length > 0)
    return 'their agents, checks and timers run only in a host';
  const chart = statechart(machine);
  const needs: string[] = [];
  const where = (path: string) => `'${path === '' ? '(machine)' : path}'`;
  // An invoke without an id gets XState's "<index>.<state id>": where it is says more.
  const inline = [...chart.states.values()].flatMap((state) =>
    state.invokes.map((invoke) =>
      /^\d+\./.test(invoke.id) ? `in ${where(state.path)}` : `${invoke.id} in ${where(state.path)}`,
    ),
  );
  const spawns = [...chart.states.values()].some(({ node }) =>
    [...node.entry, ...node.exit].some((action) => spawnedLogic(action)),
  );
  const spawnsOnTransition = chart.transitions.some((t) => t.definition.actions.some((action) => spawnedLogic(action)));
  if (inline.length) needs.push(`the actors they invoke (${inline.join(', ')}) run only in a host`);
  if (spawns || spawnsOnTransition) needs.push('the children they spawn run only in a host');
  const delays = chart.transitions
    .filter((t) => t.trigger.kind === 'after')
    .map((t) => `${t.label} in ${where(t.source)}`);
  if (delays.length) needs.push(`their \`after\` delays (${[...new Set(delays)].join(', ')}) fire only in a host`);
  return needs.length ? needs.join('; ') : undefined;
}
