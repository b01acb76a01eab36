/**
 * The per-run manifest: what a run was started with and where it stands (state, iteration,
 * session ids, times, error), kept as `manifest.json` in the run's directory. agentpair writes it
 * in place, so a crash mid-write leaves a torn file and the run is lost; here every write is
 * atomic, the previous copy is kept as `manifest.json.bak`, and a damaged file is reported with its
 * path and what is wrong with it, the last good copy being used instead.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { AGENT_NAMES, REVIEW_MODES } from './consensus.js';
import { writeFileAtomic } from '../stores/atomic-file.js';
import { isTerminalRunState, RUN_STATES, type RunState } from './run-state.js';
import { agentSettingsSchema } from './settings.js';
import { StatewrightError } from '../errors.js';

export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_BACKUP_FILE = 'manifest.json.bak';
export const MANIFEST_VERSION = 1;

const timestamp = z.iso.datetime();
/** An agent as its settings give it, its name resolved. */
const agentSchema = agentSettingsSchema.extend({ name: z.enum(AGENT_NAMES) });

export const manifestSchema = z
  .object({
    version: z.literal(MANIFEST_VERSION),
    runId: z.string().min(1),
    /** The repository the agents work in. */
    repoPath: z.string().min(1).optional(),
    state: z.enum(RUN_STATES),
    /** The iteration in progress (or the last one, once finished); 0 before the first. */
    iteration: z.number().int().min(0),
    settings: z
      .object({
        prompt: z.string().min(1),
        maxIterations: z.number().int().min(1),
        reviewMode: z.enum(REVIEW_MODES),
        doneSignal: z.string().min(1),
        primary: agentSchema,
        reviewer: agentSchema.optional(),
      })
      .strict(),
    /** Each agent's session id, for resuming by session and continuing conversations. */
    sessions: z.object({ primary: z.string().min(1).optional(), reviewer: z.string().min(1).optional() }).strict(),
    createdAt: timestamp,
    updatedAt: timestamp,
    completedAt: timestamp.optional(),
    /** Why the loop completed. */
    reason: z.string().optional(),
    /** Why the loop failed. */
    error: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export type Manifest = z.infer<typeof manifestSchema>;

/** A manifest that is missing, unreadable, not JSON, or not a manifest; names the file and what is wrong. */
export class ManifestError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'ManifestError';
  constructor(
    readonly path: string,
    readonly reason: string,
    /** Every copy that was tried, when more than one. */
    readonly attempts: ReadonlyArray<{ path: string; reason: string }> = [{ path, reason }],
  ) {
    super(attempts.map((a) => `${a.path}: ${a.reason}`).join('; '));
  }
}

export const manifestPath = (runDir: string) => join(runDir, MANIFEST_FILE);
export const manifestBackupPath = (runDir: string) => join(runDir, MANIFEST_BACKUP_FILE);

/** Writes the run's manifest atomically, keeping the copy it replaces. Refuses one that does not validate. */
export async function writeManifest(runDir: string, manifest: Manifest): Promise<void> {
  const checked = manifestSchema.safeParse(manifest);
  if (!checked.success)
    throw new ManifestError(
      manifestPath(runDir),
      `not written, it is not a valid manifest: ${describeIssues(checked.error)}`,
    );
  await writeFileAtomic(manifestPath(runDir), `${JSON.stringify(checked.data, null, 2)}\n`, {
    backup: manifestBackupPath(runDir),
  });
}

/** Reads and validates one manifest file; any problem is a `ManifestError` naming the path. */
export async function readManifest(path: string): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ManifestError(path, code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? String(error)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const torn =
      text.trim().length === 0
        ? 'the file is empty'
        : `not valid JSON (${(error as Error).message}); the file may be truncated`;
    throw new ManifestError(path, torn);
  }
  const checked = manifestSchema.safeParse(json);
  if (!checked.success) throw new ManifestError(path, `not a valid manifest: ${describeIssues(checked.error)}`);
  return checked.data;
}

export interface LoadedManifest {
  readonly manifest: Manifest;
  /** The file it came from: the manifest, or its backup when the manifest was damaged. */
  readonly path: string;
  /** Copies that could not be used, with why; empty when the manifest itself was good. */
  readonly problems: ReadonlyArray<{ path: string; reason: string }>;
}

/**
 * The run's manifest, or its last good copy when the manifest is damaged (the damage is returned
 * in `problems` for the caller to report). Throws `ManifestError` naming both files when neither
 * can be used.
 */
export async function loadManifest(runDir: string): Promise<LoadedManifest> {
  const problems: Array<{ path: string; reason: string }> = [];
  for (const path of [manifestPath(runDir), manifestBackupPath(runDir)]) {
    try {
      return { manifest: await readManifest(path), path, problems };
    } catch (error) {
      if (!(error instanceof ManifestError)) throw error;
      problems.push({ path, reason: error.reason });
    }
  }
  // A run without a manifest and without a backup was never created: report only the manifest.
  if (problems.every((p) => p.reason === 'no such file'))
    throw new ManifestError(problems[0]!.path, problems[0]!.reason);
  throw new ManifestError(problems[0]!.path, problems[0]!.reason, problems);
}

/** The manifest after a state change at `now`: stamps `updatedAt`, and `completedAt` when the run is over. */
export function withRunState(
  manifest: Manifest,
  state: RunState,
  now: number,
  details: { iteration?: number; reason?: string; error?: string } = {},
): Manifest {
  const at = new Date(now).toISOString();
  const { completedAt: _previous, ...rest } = manifest;
  return { ...rest, state, ...details, updatedAt: at, ...(isTerminalRunState(state) && { completedAt: at }) };
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');
}
