/**
 * Git checkpoints: a real commit of everything in the run's working tree, marked with a trailer
 * that names the codon attempt and the checkpoint type. The trailer makes a checkpoint idempotent:
 * an actor restarted after a crash finds the commit it already made at HEAD and returns its SHA
 * instead of committing again.
 */
import { execa } from 'execa';
import { StatewrightError } from '../errors.js';

export type CheckpointType = 'rig-setup' | 'completed' | 'error' | 'skipped';

export interface CheckpointRequest {
  workTree: string;
  type: CheckpointType;
  runId: string;
  codonId: string;
  /** Unique per codon attempt; with the type, it names the checkpoint. */
  attempt: string;
}

export interface Checkpoint {
  sha: string;
  branch: string;
  /** False when the commit was found already made (a restarted actor). */
  created: boolean;
}

/** Raised when git refuses: not a repository, no git, a lock held, a hook that fails... */
export class CheckpointError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'CheckpointError';
}

const TRAILER = 'Statewright-Checkpoint';

async function git(workTree: string, args: string[]): Promise<string> {
  const result = await execa('git', args, { cwd: workTree, reject: false, stdin: 'ignore' });
  if (result.failed) {
    const detail = (result.stderr || result.stdout || result.shortMessage || '').toString().trim().split('\n').pop();
    const subcommand = args.find((arg, i) => !arg.startsWith('-') && args[i - 1] !== '-c');
    throw new CheckpointError(`git ${subcommand} failed in ${workTree}: ${detail}`);
  }
  return String(result.stdout).trim();
}

/**
 * Commits the working tree (every change, untracked files included, ignored files not) as the
 * checkpoint. Hooks are skipped: a checkpoint records the tree as it is, it is not a contribution.
 * Uses the repository's author when one is configured, else "statewright".
 */
export async function createCheckpoint(request: CheckpointRequest): Promise<Checkpoint> {
  const { workTree, type, runId, codonId, attempt } = request;
  const mark = `${TRAILER}: ${attempt} ${type}`;
  // symbolic-ref also names the branch of a repository without commits; a detached HEAD has none.
  const branch = await git(workTree, ['symbolic-ref', '--short', 'HEAD']).catch(() => 'HEAD');
  const head = await git(workTree, ['log', '-1', '--format=%H%n%B']).catch(() => '');
  if (head.split('\n').some((line) => line.trim() === mark)) {
    return { sha: head.split('\n')[0]!, branch, created: false };
  }
  await git(workTree, ['add', '--all']);
  const hasAuthor = await git(workTree, ['config', '--get', 'user.email']).then(
    (email) => email !== '',
    () => false,
  );
  const identity = hasAuthor ? [] : ['-c', 'user.name=statewright', '-c', 'user.email=statewright@localhost'];
  const message = `statewright: ${type} checkpoint of ${codonId} (run ${runId})\n\n${mark}`;
  await git(workTree, [...identity, 'commit', '--allow-empty', '--no-verify', '--quiet', '-m', message]);
  return { sha: await git(workTree, ['rev-parse', 'HEAD']), branch, created: true };
}
