/**
 * The README's embedding example is examples/your-own-machine.ts: this runs it as a user would
 * (`npx tsx`, in a fresh folder, where it makes its SQLite file) and holds the README's copy to the
 * file, which differs only in importing from the package instead of the source tree.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';

const example = fileURLToPath(new URL('../../examples/your-own-machine.ts', import.meta.url));
const readme = fileURLToPath(new URL('../../README.md', import.meta.url));

const expected = [
  "Invalid transition: cannot apply event 'SUBMIT' in state 'review'; 'review' accepts APPROVE, REQUEST_CHANGES",
  'published (done) after 1 round(s) of changes',
  '1 SUBMIT: draft -> review by ana',
  '2 REQUEST_CHANGES: review -> draft by ben',
  '3 SUBMIT: draft -> review by ana',
  '4 APPROVE: review -> published by ben',
];

describe('the README example of an own machine', () => {
  it('hosts the machine on a SQLite file: starts a run, dispatches, refuses an event, and prints the audit trail; again on the same file', async () => {
    const dir = testDir('own-machine');
    const run = () => startCommand(process.execPath, ['--import', import.meta.resolve('tsx'), example], { cwd: dir });
    expect((await run()).stdout.split('\n')).toEqual(expected);
    expect(existsSync(join(dir, '.statewright', 'articles.db'))).toBe(true);
    // A second run opens the same file and starts a new run beside the first.
    expect((await run()).stdout.split('\n')).toEqual(expected);
  });

  it('is the code the README shows', () => {
    const section = readFileSync(readme, 'utf8')
      .split('\n## ')
      .find((s) => s.startsWith('Your own machine'));
    expect(section, 'README section "Your own machine"').toBeDefined();
    const shown = /```ts\n([\s\S]*?)```/.exec(section!)![1]!;
    // The file's opening comment is the README's prose; it imports from the source tree.
    const file = readFileSync(example, 'utf8')
      .replace(/^(\/\/.*\n)+/, '')
      .replace("from '../src/index.js'", "from 'statewright'");
    expect(shown).toBe(file);
  });
});
