/**
 * Validation on load (seed: "State Validation"): `{ valid, errors, warnings }` over the stored codon
 * and run-level runs.
 * - corrupted_data (error): a stored run whose snapshot is not the shape its lifecycle writes;
 *   it is left out of the state manager's document.
 * - missing_run (error): a codon attempt names a run that does not exist.
 * - missing_checkpoint (error): a checkpoint SHA a record holds is not a commit of its git
 *   repository. The seed lists it as a validation category; the real project declares it as a
 *   warning and never produces it. A SHA that names nothing makes rollback and continuation
 *   impossible, so it is an error here.
 * - orphaned_folder (warning): a folder under `runsDir` that no run claims as its run folder.
 */
import { execa } from 'execa';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { codonStatusSchema } from '../../machines/codon/schemas.js';
import type { RunSnapshot } from '../runtime/run-snapshot.js';
import type { CodonRunsView } from './runs-view.js';

export type StateIssueType = 'corrupted_data' | 'missing_run' | 'missing_checkpoint' | 'orphaned_folder';

export interface StateIssue {
  type: StateIssueType;
  message: string;
  runId?: string;
  codonId?: string;
  /** The hosted run the issue was found in (a codon attempt's id), when there is one. */
  attemptId?: string;
  sha?: string;
  /** Which field held the SHA (completionCheckpoint, initialCheckpoint...). */
  what?: string;
  path?: string;
}

export interface StateValidation {
  valid: boolean;
  errors: StateIssue[];
  warnings: StateIssue[];
}

export interface ValidationOptions {
  /** The folder holding run folders; each subfolder that no run names as its runFolder is reported. */
  runsDir?: string;
  /** The repository run-level SHAs (initial checkpoint, continuation source) belong to; else the run's first codon's work tree. */
  repository?: string;
  /** Skip the git look-ups (a quick structural check). */
  checkpoints?: boolean;
}

const codonRunRow = z.object({
  state: z.enum(['running', 'completed', 'failed', 'crashed']),
  context: z.object({
    runId: z.string().min(1),
    runFolder: z.string(),
    gitBranch: z.string(),
    startingConditions: z.object({ type: z.enum(['fresh', 'continuation']) }).loose(),
    serverPid: z.number(),
    startTime: z.string(),
    initialCheckpoint: z.string().optional(),
  }),
});

const codonRow = z
  .object({
    state: codonStatusSchema,
    context: z.object({
      runId: z.string().min(1),
      config: z.object({ workTree: z.string().min(1), startedAt: z.number() }).loose(),
      codon: z.object({ codonId: z.string().min(1), status: codonStatusSchema, startTime: z.string() }).loose(),
    }),
  })
  .refine((row) => row.context.codon.status === row.state, {
    error: 'the record says another status than the state the run rests in',
  });

/** Why a stored `codon` or `codon-run` row cannot be read as one, or undefined when it can. */
export function corruptionOf(snapshot: RunSnapshot): string | undefined {
  const schema = snapshot.machine === 'codon-run' ? codonRunRow : snapshot.machine === 'codon' ? codonRow : undefined;
  if (!schema) return undefined;
  const result = schema.safeParse({ state: snapshot.state, context: snapshot.context });
  if (result.success) return undefined;
  return result.error.issues.map((issue) => `${issue.path.join('.') || '(row)'}: ${issue.message}`).join('; ');
}

/** The SHAs among `shas` that are not commits of the repository at `repository` (all of them if it is not one). */
async function missingCommits(repository: string, shas: string[]): Promise<Set<string>> {
  const result = await execa('git', ['cat-file', '--batch-check=%(objectname)'], {
    cwd: repository,
    input: `${shas.map((sha) => `${sha}^{commit}`).join('\n')}\n`,
    reject: false,
  });
  if (result.failed) return new Set(shas);
  const lines = String(result.stdout).split('\n');
  return new Set(
    shas.filter((sha, i) => !lines[i] || lines[i]!.endsWith(' missing') || lines[i]!.startsWith(`${sha}^{commit} `)),
  );
}

interface ShaClaim {
  sha: string;
  what: string;
  runId: string;
  codonId?: string;
  attemptId?: string;
}

const RECORD_CHECKPOINTS = ['rigSetupCheckpoint', 'completionCheckpoint', 'errorCheckpoint', 'skipCheckpoint'] as const;

export async function validateCodonState(
  view: CodonRunsView,
  corrupted: readonly StateIssue[],
  options: ValidationOptions = {},
): Promise<StateValidation> {
  const errors: StateIssue[] = [...corrupted];
  const warnings: StateIssue[] = [];

  for (const orphan of view.orphans()) {
    errors.push({
      type: 'missing_run',
      message: `codon '${orphan.record.codonId}' (attempt '${orphan.attemptId}') belongs to run '${orphan.runId}', which does not exist`,
      runId: orphan.runId,
      codonId: orphan.record.codonId,
      attemptId: orphan.attemptId,
    });
  }

  if (options.checkpoints !== false) {
    const byRepository = new Map<string, ShaClaim[]>();
    const claim = (repository: string | undefined, entry: ShaClaim) => {
      if (!repository || !entry.sha) return;
      const key = resolve(repository);
      byRepository.set(key, [...(byRepository.get(key) ?? []), entry]);
    };
    const state = view.state();
    for (const attempt of view.allAttempts()) {
      const record = attempt.record as unknown as Record<string, unknown>;
      for (const field of RECORD_CHECKPOINTS) {
        const sha = record[field];
        if (typeof sha === 'string')
          claim(attempt.workTree, {
            sha,
            what: field,
            runId: attempt.runId,
            codonId: attempt.record.codonId,
            attemptId: attempt.attemptId,
          });
      }
    }
    for (const run of state.runs) {
      const repository = options.repository ?? view.attempts(run.runId, run.codons[0]?.codonId ?? '')[0]?.workTree;
      if (run.startingConditions.type === 'continuation')
        claim(repository, {
          sha: run.startingConditions.source.checkpointSha,
          what: 'continuation source',
          runId: run.runId,
        });
      if (run.startingConditions.type === 'fresh' && run.startingConditions.initialCheckpointSha) {
        claim(repository, {
          sha: run.startingConditions.initialCheckpointSha,
          what: 'initialCheckpointSha',
          runId: run.runId,
        });
      }
    }
    if (state.initialCheckpoint && state.runs[0]) {
      const repository =
        options.repository ?? view.allAttempts().find((a) => a.runId === state.runs[0]!.runId)?.workTree;
      claim(repository, { sha: state.initialCheckpoint, what: 'initialCheckpoint', runId: state.runs[0].runId });
    }
    for (const [repository, claims] of byRepository) {
      const missing = await missingCommits(repository, [...new Set(claims.map((c) => c.sha))]);
      for (const c of claims) {
        if (!missing.has(c.sha)) continue;
        const owner = c.codonId ? `codon '${c.codonId}' of run '${c.runId}'` : `run '${c.runId}'`;
        errors.push({
          type: 'missing_checkpoint',
          message: `${owner}: ${c.what} ${c.sha} is not a commit in ${repository}`,
          ...c,
          path: repository,
        });
      }
    }
  }

  if (options.runsDir) {
    const claimed = new Set(view.state().runs.map((run) => resolve(options.runsDir!, run.runFolder)));
    let folders: string[] = [];
    try {
      folders = readdirSync(options.runsDir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
    } catch {
      // No runs folder: nothing can be orphaned.
    }
    for (const name of folders) {
      const path = join(resolve(options.runsDir), name);
      if (!claimed.has(path))
        warnings.push({ type: 'orphaned_folder', message: `run folder ${path} belongs to no run in the state`, path });
    }
  }

  return { valid: errors.length === 0, errors, warnings };
}
