/** The codon example of docs/lifecycles/codon.md (examples/codon-run.ts), run as the program it is. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProgram } from '../support/child-processes.js';
import { isolateGit, makeRepo } from '../support/git-repo.js';

const example = fileURLToPath(new URL('../../examples/codon-run.ts', import.meta.url));
let repo: Awaited<ReturnType<typeof makeRepo>>;
beforeAll(async () => {
  isolateGit();
  repo = await makeRepo();
});
afterAll(() => repo.remove());

describe('examples/codon-run.ts', () => {
  it('runs a codon to completion with its rig and completion checkpoints, and prints its costs', async () => {
    const { stdout } = await startProgram(example, [repo.dir]);
    const [completion, rig] = (await repo.git('log', '-2', '--format=%H')).split('\n');
    expect(stdout.split('\n')).toEqual([
      'codon write-notes: completed',
      `checkpoint ${completion}, cost 0.0123 USD`,
      'run cost 0.0123 USD, total 0.0123 USD',
      'runs: run-1 completed; valid: true',
    ]);
    expect(await repo.git('show', '--name-only', '--format=', rig!)).toBe('VERSION');
    expect(await repo.git('show', '--name-only', '--format=', completion!)).toBe('RELEASE_NOTES.md');
    expect(readFileSync(join(repo.dir, 'RELEASE_NOTES.md'), 'utf8')).toBe('written by the stand-in agent\n');
  });
});
