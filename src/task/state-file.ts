/**
 * STATE.json: the task as a file that people, agents and ferrus-style tools read. Written
 * atomically: the new content goes to a temporary file beside it, is flushed to disk, and is
 * renamed over the old one, so a reader (or a crash at any instant) sees the previous file or the
 * next one, never a mix. ferrus does the same without the flush; a power loss could then leave an
 * empty file behind the rename.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { writeFileAtomic } from '../stores/atomic-file.js';
import { acquireLock } from '../stores/json-file/file-lock.js';
import { StoreLockedError } from '../stores/store-errors.js';
import { agentIdSchema, taskViewSchema, type Lease, type TaskView } from '../../machines/task/index.js';
import { StatewrightError } from '../errors.js';

/** Bumped when a change to the fields would mislead an older reader. */
export const STATE_SCHEMA_VERSION = 1;

const instant = z.iso.datetime({ offset: true });

export const stateFileSchema = taskViewSchema.extend({
  schema_version: z.int().positive(),
  claimed_by: agentIdSchema.optional(),
  lease_until: instant.optional(),
  last_heartbeat: instant.optional(),
  /** The lease's timer fired: whoever claimed_by names no longer holds the task. */
  lease_expired: z.literal(true).optional(),
  updated_at: instant,
  owner_pid: z.int().positive(),
  /** The task run's seq this file shows: a writer never replaces a newer file with an older one. */
  seq: z.int().nonnegative().optional(),
});
export type StateFile = z.infer<typeof stateFileSchema>;

/** A STATE.json that cannot be used: where it is and what is wrong with it. */
export class StateFileError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'StateFileError';
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

export interface StateStamp {
  /** The writer's clock reading, in ms since the epoch: becomes updated_at. */
  readonly now: number;
  /** The writing process; default this one. */
  readonly pid?: number;
  readonly lease?: Lease;
  readonly leaseExpired?: boolean;
  /**
   * The run's seq the view was read at. Given, the write happens under `STATE.json.lock` and only
   * if the file shows an older seq: two processes committing to one task (an answer and a resume)
   * then leave the newest state in the file, whichever of them renames last.
   */
  readonly seq?: number;
}

/** What STATE.json holds for `view`, stamped (with `seq` when the stamp has one). */
export function stateFileContent(view: TaskView, stamp: StateStamp): StateFile {
  const { lease } = stamp;
  return {
    schema_version: STATE_SCHEMA_VERSION,
    ...view,
    ...(lease && {
      claimed_by: lease.claimedBy,
      lease_until: new Date(lease.leaseUntil).toISOString(),
      last_heartbeat: new Date(lease.lastHeartbeat).toISOString(),
      ...(stamp.leaseExpired && { lease_expired: true as const }),
    }),
    updated_at: new Date(stamp.now).toISOString(),
    owner_pid: stamp.pid ?? process.pid,
    ...(stamp.seq !== undefined && { seq: stamp.seq }),
  };
}

/** Writes `view` to `path` atomically, stamped; returns what was written. */
export async function writeStateFile(path: string, view: TaskView, stamp: StateStamp): Promise<StateFile> {
  const content = stateFileContent(view, stamp);
  const { seq } = stamp;
  if (seq === undefined) {
    await write(path, content);
    return content;
  }
  const release = await lock(`${path}.lock`);
  try {
    const current = await readStateFile(path).catch(() => undefined);
    if (current?.seq !== undefined && current.seq >= seq) return current;
    await write(path, content);
    return content;
  } finally {
    release();
  }
}

async function write(path: string, content: StateFile): Promise<void> {
  try {
    // STATE.json is for people and tools to read: the usual mode, not the manifest's private one.
    await writeFileAtomic(path, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o644 });
  } catch (error) {
    throw new StateFileError(path, `could not be written: ${(error as Error).message}`);
  }
}

/** Takes the lock file, waiting (up to 5 s) while another live process holds it. */
async function lock(path: string): Promise<() => void> {
  for (let waited = 0; ; waited += 10) {
    try {
      return acquireLock(path);
    } catch (error) {
      if (!(error instanceof StoreLockedError) || waited >= 5000)
        throw new StateFileError(path, `could not be locked: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/** Reads and checks STATE.json: undefined when there is none; `StateFileError` when it is not usable. */
export async function readStateFile(path: string): Promise<StateFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateFileError(path, `cannot be read: ${(error as Error).message}`);
  }
  return parseStateFile(text, path);
}

export function parseStateFile(text: string, path: string): StateFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new StateFileError(path, `is not valid JSON (${(error as Error).message}); it may be truncated`);
  }
  const version = (json as { schema_version?: unknown } | null)?.schema_version;
  if (typeof version === 'number' && version > STATE_SCHEMA_VERSION) {
    throw new StateFileError(
      path,
      `has schema_version ${version}, newer than this statewright reads (${STATE_SCHEMA_VERSION}): upgrade statewright`,
    );
  }
  const result = stateFileSchema.safeParse(json);
  if (!result.success) {
    const problems = result.error.issues.map(
      (issue) => `${issue.path.map(String).join('.') || '(file)'}: ${issue.message}`,
    );
    throw new StateFileError(path, `is not a task state file: ${problems.join('; ')}`);
  }
  return result.data;
}
