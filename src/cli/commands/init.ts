import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { Command } from 'commander';
import { CONFIG_FILE_NAMES } from '../../config/find-config.js';
import { StatewrightError } from '../../errors.js';
import type { Cli } from '../command.js';
import { invocation } from '../invocation.js';

/** What `statewright init` writes: one small machine of the user's, hosted beside the built-in lifecycles. */
export const STARTER_CONFIG = `import { defineConfig, defineLifecycle } from 'statewright';
import { setup } from 'xstate';

/** An article: written, reviewed by an editor, then published (or sent back). */
const article = setup({
  types: {
    events: {} as { type: 'SUBMIT' } | { type: 'APPROVE' } | { type: 'REJECT'; note?: string },
  },
}).createMachine({
  id: 'article',
  initial: 'draft',
  states: {
    draft: { on: { SUBMIT: 'review' } },
    review: {
      on: {
        APPROVE: 'published',
        // statewright check asks every cycle for a bound or a reason.
        REJECT: { target: 'draft', meta: { unbounded: 'an editor may send an article back as often as it needs' } },
      },
    },
    published: { type: 'final' },
  },
});

export default defineConfig({
  machines: [
    defineLifecycle({
      name: 'article',
      machine: article,
      version: 1,
      summary: 'an article from draft through review to published',
      // Where a run waits for a person: explain, status and the live view say so; check takes it as declared.
      waitsFor: {
        draft: 'its author to SUBMIT it',
        review: { summary: 'an editor', approve: { type: 'APPROVE' }, deny: { type: 'REJECT' } },
      },
    }),
  ],
});
`;

/** What `statewright init` writes beside the config: every path of its lifecycles as vitest tests (`statewright/testing`). */
export const STARTER_TEST = `import { afterAll, describe, it } from 'vitest';
import { testLifecycle } from 'statewright/testing';
import config from './statewright.config';

// Every path of each of your lifecycles, generated from its statechart and driven through the runtime
// beside plain XState, with a crash and a restore at every commit: one test per path.
// \`statewright test\` runs the same without a test runner. See docs/testing-your-machines.md.
for (const lifecycle of config.machines) {
  describe(lifecycle.name, () => {
    const test = testLifecycle(lifecycle);
    afterAll(() => test.close());
    for (const path of test.paths) it(path.description, () => test.expectPath(path));
  });
}
`;

/** The folder already has a config: init never overwrites one. */
export class ConfigExistsError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'ConfigExistsError';
  constructor(readonly file: string) {
    super(`${file} exists already: init leaves it as it is. Edit it, or remove it and run statewright init again.`);
  }
}

export const initCommand = (cli: Cli) =>
  new Command('init')
    .summary('write a starter statewright.config.ts with one small machine of your own, and say what to run next')
    .option('--dir <dir>', 'the folder to write it in', '.')
    .action(
      cli.exitsWith(async (values: { readonly dir: string }) => {
        const existing = CONFIG_FILE_NAMES.map((name) => join(values.dir, name)).find((file) => existsSync(file));
        if (existing) throw new ConfigExistsError(existing);
        const file = join(values.dir, CONFIG_FILE_NAMES[0]);
        // 'wx': a file made between the check and the write is not overwritten either.
        await writeFile(file, STARTER_CONFIG, { flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
          throw error.code === 'EEXIST' ? new ConfigExistsError(file) : error;
        });
        const shown = relative(process.cwd(), file) || file;
        // Beside it, the starter test, unless there is one: never overwritten either.
        const testFile = join(values.dir, 'statewright.config.test.ts');
        const wroteTest = await writeFile(testFile, STARTER_TEST, { flag: 'wx' }).then(
          () => true,
          (error: NodeJS.ErrnoException) => {
            if (error.code === 'EEXIST') return false;
            throw error;
          },
        );
        const dir = resolve(values.dir);
        // Commands that run as printed, where the config is: `npx statewright` in a local install.
        const run = invocation({ cwd: dir });
        const moveTo: Array<readonly [string, string]> =
          dir === process.cwd() ? [] : [[`cd ${relative(process.cwd(), dir) || dir}`, 'where the config is']];
        const next: Array<readonly [string, string]> = [
          ...moveTo,
          [`${run} check`, 'the rules on every machine, yours included'],
          [`${run} test article`, 'every path of it, with a crash at every commit'],
          [`${run} serve`, 'host them all, with the live view (Ctrl-C stops it)'],
          [`${run} start article --id post-1`, 'start a run (in another terminal)'],
          [`${run} send post-1 SUBMIT`, 'move it on'],
          [`${run} explain post-1`, 'why it waits, and what moves it'],
        ];
        const width = Math.max(...next.map(([command]) => command.length)) + 2;
        process.stdout.write(
          `wrote ${shown}: an 'article' lifecycle beside the built-in ones (it imports statewright and xstate: npm install statewright xstate)\n` +
            (wroteTest
              ? `wrote ${relative(process.cwd(), testFile) || testFile}: every path of it as vitest tests (npm install -D vitest; npx vitest)\n`
              : '') +
            '\n' +
            'Next:\n' +
            next.map(([command, what]) => `  ${command.padEnd(width)}${what}\n`).join(''),
        );
        return 0;
      }),
    );
