import { createHash, randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { PRIVATE_FILE_MODE } from '../../os/private-files.js';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { isProcessAlive, processStartTime } from '../../os/process-identity.js';
import { StoreLockedError } from '../store-errors.js';

/**
 * A lock file held by one process, taken over atomically when its holder has died.
 *
 * Taking a free lock is `link()` of a complete file onto the lock's name: it fails if the name
 * exists, so of any number of processes exactly one gets it, and no reader ever sees it half
 * written. Taking over a dead holder's lock must not be unlink-then-create (two processes that
 * both judged it stale would both unlink and then both create, one after the other). Instead a
 * taker first claims the takeover of that very lock content: it links a claim file whose name is
 * the hash of the content it judged stale. Only one process can create that claim; it checks the
 * lock still holds that content (nobody alive can change it: its holder is dead, and every other
 * taker needs the claim) and renames its own lock file over it. A claimant that is alive makes the
 * others refuse (the lock is being taken); one that died claiming is itself taken over by a claim
 * on its claim, and so on along the chain. The winner removes the claims it passed.
 */

/** Lock files this process holds, so a second store object on the same folder is refused too. */
const held = new Set<string>();

interface Holder {
  pid?: unknown;
  pidStart?: unknown;
  host?: unknown;
  since?: unknown;
}

/** What a lock or claim file holds: its exact bytes (the identity of that holding) and who wrote them. */
interface Content {
  bytes: Buffer;
  holder: Holder;
  /** The file's age, for telling a file being written from a damaged one. */
  ageMs: number;
}

function read(path: string): Content | undefined {
  let bytes: Buffer;
  let ageMs: number;
  try {
    bytes = readFileSync(path);
    ageMs = Date.now() - statSync(path).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let holder: Holder = {};
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    if (parsed && typeof parsed === 'object') holder = parsed as Holder;
  } catch {
    // Unreadable (damaged by a crash of the machine): nobody can be shown to hold it.
  }
  return { bytes, holder, ageMs };
}

/** Whether the holder named in a lock or claim is gone, so its lock may be taken over. */
function stale({ holder, ageMs }: Content): boolean {
  const pid = typeof holder.pid === 'number' ? holder.pid : undefined;
  // Files are linked in whole, so an unreadable one is damage; still, give a writer of an older format a second.
  if (pid === undefined) return ageMs >= 1000;
  // Our own pid without the lock in `held` is a previous process that had our pid.
  if (pid === process.pid && holder.host === hostname()) return true;
  return !isProcessAlive({
    pid,
    ...(typeof holder.pidStart === 'string' && { pidStart: holder.pidStart }),
    ...(typeof holder.host === 'string' && { host: holder.host }),
  });
}

const describeHolder = ({ holder }: Content) =>
  `process ${String(holder.pid)} on ${String(holder.host)} since ${String(holder.since)}`;

/** The claim on taking over the lock whose content is `bytes`. */
const claimPath = (lock: string, bytes: Buffer) =>
  join(dirname(lock), `${basename(lock)}.takeover-${createHash('sha256').update(bytes).digest('hex').slice(0, 24)}`);

/** Writes this process's identity to a fresh temporary file beside `lock`; its content is unique (the nonce). */
function writeIdentity(lock: string): { path: string; bytes: Buffer } {
  const identity = {
    pid: process.pid,
    pidStart: processStartTime(process.pid) ?? 'unknown',
    host: hostname(),
    since: new Date().toISOString(),
    nonce: randomBytes(8).toString('hex'),
  };
  const bytes = Buffer.from(JSON.stringify(identity));
  const path = join(dirname(lock), `.${basename(lock)}.${process.pid}.${identity.nonce}.tmp`);
  writeFileSync(path, bytes, { flag: 'wx', mode: PRIVATE_FILE_MODE });
  return { path, bytes };
}

/** `link()` that says whether the name was free; the one atomic "create if absent" with the content in place. */
function linkIfAbsent(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

/**
 * Takes over the lock at `lock` whose (dead) content is `stale`: returns true when this process now
 * holds it, false when the lock changed meanwhile (look again), or throws StoreLockedError when a
 * live process is taking it over.
 */
function takeOver(lock: string, staleLock: Content, mine: { path: string; bytes: Buffer }): boolean {
  // The claims passed on the way (of claimants that died), then ours.
  const passed: string[] = [];
  let target = staleLock;
  for (;;) {
    const claim = claimPath(lock, target.bytes);
    if (linkIfAbsent(mine.path, claim)) {
      passed.push(claim);
      break;
    }
    const claimant = read(claim);
    if (!claimant) return false; // Its claimant finished and cleaned up: the lock has changed.
    if (!stale(claimant))
      throw new StoreLockedError(
        lock,
        `${describeHolder(claimant)}, which is taking over the lock of a process that died`,
      );
    passed.push(claim);
    target = claimant;
  }
  // The claim is ours: the lock still holds what we judged stale, unless an earlier winner replaced it.
  const now = read(lock);
  if (!now?.bytes.equals(staleLock.bytes)) {
    removeQuietly(passed.at(-1)!);
    return false;
  }
  renameSync(mine.path, lock);
  for (const claim of passed) removeQuietly(claim);
  return true;
}

/**
 * Takes the lock file at `path` for this process, or refuses with StoreLockedError naming the
 * holder. A lock left by a process that is gone (killed, crashed) on this host is taken over,
 * atomically: of any number of processes racing for it, exactly one gets it. Returns the release
 * function.
 */
export function acquireLock(path: string): () => void {
  const absolute = resolve(path);
  if (held.has(absolute))
    throw new StoreLockedError(absolute, `another store object in this process (pid ${process.pid}); close it first`);
  const mine = writeIdentity(absolute);
  try {
    for (let attempt = 0; attempt < 20; attempt++) {
      if (linkIfAbsent(mine.path, absolute)) {
        removeQuietly(mine.path);
        return holding(absolute, mine.bytes);
      }
      const current = read(absolute);
      if (!current) continue; // Released between our link and our read: try again.
      if (!stale(current)) throw new StoreLockedError(absolute, describeHolder(current));
      if (takeOver(absolute, current, mine)) return holding(absolute, mine.bytes);
    }
    throw new StoreLockedError(absolute, 'processes that keep taking it over');
  } finally {
    removeQuietly(mine.path);
  }
}

/** Marks the lock held by this process and returns its release, which removes the file only while it is still ours. */
function holding(absolute: string, bytes: Buffer): () => void {
  held.add(absolute);
  return () => {
    if (!held.delete(absolute)) return;
    if (read(absolute)?.bytes.equals(bytes)) removeQuietly(absolute);
  };
}
