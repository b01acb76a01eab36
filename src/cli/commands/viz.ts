import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { lifecycles } from '../../../machines/index.js';
import { visualizationFiles } from '../../graph/visualizations.js';
import type { Command } from '../command.js';

export const vizCommand: Command = {
  summary: 'write a Mermaid diagram and an SVG of every lifecycle (--out, default visualizations/)',
  async run(args) {
    const { values } = parseArgs({ args, options: { out: { type: 'string', default: 'visualizations' } } });
    await mkdir(values.out, { recursive: true });
    for (const [file, content] of await visualizationFiles(lifecycles)) {
      await writeFile(join(values.out, file), content);
      process.stdout.write(`wrote ${join(values.out, file)}\n`);
    }
    return 0;
  },
};
