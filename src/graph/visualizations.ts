import type { AnyStateMachine } from 'xstate';
import { toDot } from './dot.js';
import { toMermaid } from './mermaid.js';
import { renderSvg } from './svg.js';

/** The diagram files of every machine, by file name: `<name>.mmd` (Mermaid) and `<name>.svg`. */
export async function visualizationFiles(
  machines: Record<string, { machine: AnyStateMachine }>,
): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const [name, { machine }] of Object.entries(machines)) {
    files.set(`${name}.mmd`, toMermaid(machine));
    files.set(`${name}.svg`, await renderSvg(toDot(machine)));
  }
  return files;
}
