/** The task example of docs/lifecycles/task.md, run as written (with the built bin for `npx statewright`). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { readStateFile } from '../../src/task/state-file.js';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';

const page = readFileSync(new URL('../../docs/lifecycles/task.md', import.meta.url), 'utf8');
const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;

it('takes the task of docs/lifecycles/task.md from create to approve on the command line', async () => {
  const block = /<!-- task-example[^>]*-->\n```sh\n([\s\S]*?)```/.exec(page)?.[1];
  expect(block, 'docs/lifecycles/task.md has its task example').toBeDefined();
  const script = block!.replaceAll('npx statewright', `node ${bin}`);
  const dir = testDir('task-doc');
  const result = await startCommand('sh', ['-e', '-c', script], { cwd: dir, reject: false });
  expect(result.stderr).toBe('');
  expect(result.exitCode).toBe(0);
  expect(result.stdout.split('\n').filter((line) => line.startsWith('task is '))).toEqual([
    'task is Executing',
    'task is Checking (checks passed)',
    'task is Reviewing',
    'task is Complete',
    'task is Complete',
  ]);
  expect(await readStateFile(join(dir, 'STATE.json'))).toMatchObject({
    state: 'Complete',
    task: 'Write NOTES.md',
    submission: 'Wrote NOTES.md',
  });
});
