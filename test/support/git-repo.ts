import { execa } from 'execa';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Keeps the machine's git configuration out of the test process (and the git it runs): no global
 * or system config, so no author is configured unless a test sets one in the repository.
 */
export function isolateGit(): void {
  process.env.GIT_CONFIG_GLOBAL = '/dev/null';
  process.env.GIT_CONFIG_NOSYSTEM = '1';
}

/** A real repository in a temp directory, with one commit on `main`. */
export async function makeRepo(prefix = 'statewright-repo-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const git = async (...args: string[]) => (await execa('git', args, { cwd: dir })).stdout.trim();
  await git('init', '--quiet', '--initial-branch=main');
  writeFileSync(join(dir, 'README'), 'a project\n');
  await git('add', '--all');
  await git('-c', 'user.name=seed', '-c', 'user.email=seed@example.com', 'commit', '--quiet', '-m', 'initial');
  return { dir, git, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
