/** The Node example of docs/lifecycles/review-loop.md (examples/review-loop.ts) runs as shown, as its own process. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { startProgram } from '../support/child-processes.js';

const root = join(import.meta.dirname, '../..');

it('examples/review-loop.ts runs a loop to completion and prints its iterations', async () => {
  const cwd = testDir('example');
  const result = await startProgram(join(root, 'examples/review-loop.ts'), [], { cwd });
  const lines = result.stdout.split('\n');
  expect(lines.slice(0, -1)).toEqual([
    'iteration 1',
    '  primary: none',
    '  reviewer: changes (only 1 of 3 steps are implemented)',
    'iteration 2',
    '  primary: none',
    '  reviewer: changes (only 2 of 3 steps are implemented)',
    'iteration 3',
    '  primary: none',
    '  reviewer: pass (all 3 steps are in and tested)',
    'complete after 3 iterations: PASS: all 3 steps are in and tested',
  ]);
  const runDir = lines.at(-1)!.replace('manifest and transcript: ', '');
  expect(JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'))).toMatchObject({
    state: 'completed',
    iteration: 3,
  });
  expect(readFileSync(join(cwd, 'work.txt'), 'utf8')).toBe('step\nstep\nstep\n');
});
