import type { AnyStateMachine } from 'xstate';
import { diagramModel } from './diagram-edges.js';

/** Mermaid ids may not contain dots or dashes; nested state names use both. */
const mermaidId = (state: string) => state.replace(/[^A-Za-z0-9_]/g, '_');

/** A Mermaid `stateDiagram-v2` of the machine: initial arrow, final states, every event label. */
export function toMermaid(machine: AnyStateMachine): string {
  const model = diagramModel(machine);
  const lines = ['---', `title: ${model.id}`, '---', 'stateDiagram-v2'];
  for (const state of model.states) {
    if (mermaidId(state) !== state) lines.push(`  state "${state}" as ${mermaidId(state)}`);
  }
  lines.push(`  [*] --> ${mermaidId(model.initial)}`);
  for (const edge of model.edges) {
    lines.push(`  ${mermaidId(edge.source)} --> ${mermaidId(edge.target)} : ${edge.label}`);
  }
  for (const state of model.finals) lines.push(`  ${mermaidId(state)} --> [*]`);
  return `${lines.join('\n')}\n`;
}
