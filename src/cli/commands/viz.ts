import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command } from 'commander';
import { visualizationFiles } from '../../graph/visualizations.js';
import type { Cli } from '../command.js';

export const vizCommand = (cli: Cli) =>
  new Command('viz')
    .summary("write a Mermaid diagram and an SVG of every lifecycle (the config's too) into a folder")
    .option('--out <dir>', 'the folder to write them to', 'visualizations')
    .action(
      cli.exitsWith(async (values: { readonly out: string }) => {
        await mkdir(values.out, { recursive: true });
        for (const [file, content] of await visualizationFiles((await cli.registry()).machines)) {
          await writeFile(join(values.out, file), content);
          process.stdout.write(`wrote ${join(values.out, file)}\n`);
        }
        return 0;
      }),
    );
