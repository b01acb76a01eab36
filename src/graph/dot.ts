import type { AnyStateMachine } from 'xstate';
import { diagramModel } from './diagram-edges.js';

const quote = (text: string) => `"${text.replace(/["\\]/g, '\\$&')}"`;

/** A Graphviz DOT graph of the machine: a start point, double circles for final states, labelled edges. */
export function toDot(machine: AnyStateMachine): string {
  const model = diagramModel(machine);
  const lines = [
    `digraph ${quote(model.id)} {`,
    '  rankdir=LR;',
    `  label=${quote(model.id)}; labelloc=t; fontname="Helvetica";`,
    '  node [shape=box, style="rounded", fontname="Helvetica"];',
    '  edge [fontname="Helvetica", fontsize=10];',
    '  "__initial" [shape=point, width=0.15, label=""];',
  ];
  for (const state of model.states) {
    lines.push(`  ${quote(state)}${model.finals.has(state) ? ' [shape=doublecircle, style=""]' : ''};`);
  }
  lines.push(`  "__initial" -> ${quote(model.initial)};`);
  for (const edge of model.edges) {
    lines.push(`  ${quote(edge.source)} -> ${quote(edge.target)} [label=${quote(edge.label)}];`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
