/**
 * serve and an edited config: the config's files are watched (config-watch.ts) and, on a change,
 * the config is read again. A config that loads is put in place of the old one by serve (`apply`:
 * its host restarted in-process, as a restart with the new config would: runs handed over at a
 * step boundary, migrated or set aside with their reason); one that cannot be loaded (it does not
 * compile, is not valid, or edits a lifecycle without a version bump in a way that strands live
 * runs) leaves serve on the config it runs, and says why. The API's `GET /api/host` shows the
 * config serve runs and the error of the last reload (`status`), which the CLI compares with the
 * config it reads.
 */
import type { Lifecycles } from '../../machines/lifecycle.js';
import { configHash, loadRegistry, type ConfigSource, type Registry } from '../config/index.js';
import { restoreProblem } from '../runtime/set-aside.js';
import type { SetAsideRun } from '../runtime/index.js';
import type { Store } from '../stores/index.js';
import { watchConfigFiles, type ConfigWatch } from './config-watch.js';
import { UnversionedEditError } from './serve-errors.js';

/** The config serve runs, as `GET /api/host` shows it. */
export interface ConfigStatus {
  /** The config file, or null: the built-in lifecycles alone. */
  readonly file: string | null;
  /** The hash of the config's files as serve loaded them (`configHash`), or null without a config. */
  readonly hash: string | null;
  /** The config file and the local files it imports: what serve watches. */
  readonly inputs: readonly string[];
  /** When the config serve runs was loaded (ISO 8601), or null without a config. */
  readonly loadedAt: string | null;
  /** The version of each lifecycle serve hosts, by name. */
  readonly lifecycles: Readonly<Record<string, number>>;
  /** How many times a changed config was loaded since serve started. */
  readonly reloads: number;
  /** Why the config as it is now on disk is not the one serve runs; null when the last reload loaded it. */
  readonly error: { readonly message: string; readonly at: string; readonly hash: string } | null;
}

/** What the host restart of a reload did (serve's `apply`). */
export interface ReloadApplied {
  /** The runs the new host restored. */
  readonly restored: number;
  /** The runs it set aside, each with its reason. */
  readonly setAside: readonly SetAsideRun[];
}

export type ReloadOutcome =
  /** Nothing to load: the files hold what serve runs, or the same text it already refused. */
  | { readonly kind: 'unchanged' }
  /** The files are back to what serve runs, after a change it refused. */
  | { readonly kind: 'reverted'; readonly file: string; readonly hash: string }
  | {
      readonly kind: 'loaded';
      readonly file: string;
      readonly from: string;
      readonly to: string;
      /** What changed, one phrase each: `article v1 -> v2`, `blog v1 added`, `deploy removed`. */
      readonly changes: readonly string[];
      readonly restored: number;
      readonly setAside: readonly SetAsideRun[];
    }
  | {
      readonly kind: 'refused';
      readonly file: string;
      readonly error: Error;
      /** The hash and load time of the config serve keeps running. */
      readonly kept: { readonly hash: string; readonly loadedAt: string };
    };

export interface ConfigReloadsDeps {
  /** The registry serve started with: read from a config file, so with its `source`. */
  readonly registry: Registry & { readonly source: ConfigSource };
  readonly store: Store;
  /** Puts the new config in place (serve restarts its host on it); rejects if it could not, keeping the old one. */
  readonly apply: (next: Registry) => Promise<ReloadApplied>;
  /** Told of every reload that did something, loaded or refused (serve prints it). */
  readonly told: (outcome: Exclude<ReloadOutcome, { kind: 'unchanged' }>) => void;
  /** Told when the files cannot be watched (serve then reloads only when asked). */
  readonly watchFailed?: (error: Error) => void;
  readonly now?: () => number;
}

export class ConfigReloads {
  #source: ConfigSource;
  #machines: Lifecycles;
  #loadedAt: number;
  #reloads = 0;
  #error: { message: string; at: number; hash: string } | undefined;
  /** One reload at a time, in the order asked. */
  #queue: Promise<unknown> = Promise.resolve();
  #watch: ConfigWatch | undefined;
  readonly #now: () => number;

  constructor(private readonly deps: ConfigReloadsDeps) {
    this.#source = deps.registry.source;
    this.#machines = deps.registry.machines;
    this.#now = deps.now ?? Date.now;
    this.#loadedAt = this.#now();
  }

  /** Reloads on every change to the config's files from now on. */
  watch(): void {
    this.#watch ??= watchConfigFiles(
      this.#source.inputs,
      () => void this.reload(),
      (error) => this.deps.watchFailed?.(error),
    );
  }

  close(): void {
    this.#watch?.close();
  }

  status(): ConfigStatus {
    return {
      file: this.#source.file,
      hash: this.#source.hash,
      inputs: this.#source.inputs,
      loadedAt: new Date(this.#loadedAt).toISOString(),
      lifecycles: versionsOf(this.#machines),
      reloads: this.#reloads,
      error: this.#error
        ? { message: this.#error.message, at: new Date(this.#error.at).toISOString(), hash: this.#error.hash }
        : null,
    };
  }

  /** Reads the config again and loads it if it changed (after the reloads already asked for). */
  reload(): Promise<ReloadOutcome> {
    const next = this.#queue.then(() => this.#reload());
    this.#queue = next.catch(() => {});
    return next;
  }

  async #reload(): Promise<ReloadOutcome> {
    const { file } = this.#source;
    const onDisk = configHash(file, this.#source.inputs);
    if (onDisk === this.#source.hash) {
      if (!this.#error) return { kind: 'unchanged' };
      this.#error = undefined;
      return this.#tell({ kind: 'reverted', file, hash: onDisk });
    }
    // The same text it refused: a touch, or a save without a change, says nothing new.
    if (onDisk === this.#error?.hash) return { kind: 'unchanged' };
    let next: Registry | undefined;
    try {
      next = await loadRegistry({ flag: file });
      const source = next.source!;
      if (source.hash === this.#source.hash) {
        this.#error = undefined;
        return this.#tell({ kind: 'reverted', file, hash: source.hash });
      }
      await checkVersionedEdits(file, this.deps.store, this.#machines, next.machines, this.#now());
      const from = this.#source.hash;
      const changes = changesBetween(this.#machines, next.machines);
      // The store is opened once, at start: a config that names another says nothing to a running serve.
      if (next.store !== this.deps.registry.store)
        changes.push(`its store (${next.store ?? 'none'}) is not opened until serve is restarted`);
      const applied = await this.deps.apply(next);
      this.#source = source;
      this.#machines = next.machines;
      this.#loadedAt = this.#now();
      this.#reloads++;
      this.#error = undefined;
      this.#watch?.follow(source.inputs);
      return this.#tell({ kind: 'loaded', file, from, to: source.hash, changes, ...applied });
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      this.#error = { message: failure.message, at: this.#now(), hash: next?.source?.hash ?? onDisk };
      // A config that compiled may import files it did not before: a fix to one of them is a change too.
      if (next?.source) this.#watch?.follow([...new Set([...this.#source.inputs, ...next.source.inputs])]);
      return this.#tell({
        kind: 'refused',
        file,
        error: failure,
        kept: { hash: this.#source.hash, loadedAt: new Date(this.#loadedAt).toISOString() },
      });
    }
  }

  #tell<O extends Exclude<ReloadOutcome, { kind: 'unchanged' }>>(outcome: O): O {
    this.deps.told(outcome);
    return outcome;
  }
}

/** What serve says of a reload, in one line: the file, what happened and, when refused, the fix. */
export function reloadLine(outcome: Exclude<ReloadOutcome, { kind: 'unchanged' }>): string {
  switch (outcome.kind) {
    case 'reverted':
      return `config ${outcome.file} is back to the one serve runs (hash ${outcome.hash}): nothing to reload`;
    case 'loaded': {
      const setAside = outcome.setAside.length
        ? `, ${outcome.setAside.length} set aside (${outcome.setAside.map((run) => `${run.runId}: ${run.reason}`).join('; ')})`
        : '';
      const changes = outcome.changes.length ? outcome.changes.join(', ') : 'no lifecycle changed';
      return `config reloaded from ${outcome.file} (hash ${outcome.from} -> ${outcome.to}): ${changes}; ${outcome.restored} runs restored${setAside}`;
    }
    case 'refused':
      return `config not reloaded: ${outcome.error.message.replace(/\.$/, '')}. serve keeps running the config it loaded at ${outcome.kept.loadedAt} (hash ${outcome.kept.hash}); fix ${outcome.file} and serve loads it when it is saved`;
  }
}

/** Each lifecycle's version, by name. */
function versionsOf(machines: Lifecycles): Record<string, number> {
  return Object.fromEntries(Object.entries(machines).map(([name, lifecycle]) => [name, lifecycle.version]));
}

/** What a reload changes, one phrase per lifecycle added, removed, given another version or edited. */
function changesBetween(old: Lifecycles, next: Lifecycles): string[] {
  const changes: string[] = [];
  for (const [name, lifecycle] of Object.entries(next)) {
    const before = Object.hasOwn(old, name) ? old[name] : undefined;
    if (!before) changes.push(`${name} v${lifecycle.version} added`);
    else if (before.version !== lifecycle.version) changes.push(`${name} v${before.version} -> v${lifecycle.version}`);
    else if (edited(before, lifecycle)) changes.push(`${name} v${lifecycle.version} edited`);
  }
  for (const name of Object.keys(old)) if (!Object.hasOwn(next, name)) changes.push(`${name} removed`);
  return changes;
}

/** Whether a lifecycle's machine changed: its definition (states, transitions, actors by name) differs. */
function edited(before: Lifecycles[string], after: Lifecycles[string]): boolean {
  if (before === after) return false;
  try {
    return JSON.stringify(before.machine.definition) !== JSON.stringify(after.machine.definition);
  } catch {
    return true;
  }
}

/**
 * Refuses a reload that edits a lifecycle but keeps its version while live runs of it that the
 * old definition restores cannot be restored by the new one: a restart would set them aside for a
 * change that says nothing of them, so serve keeps the config it runs and names the fix.
 */
async function checkVersionedEdits(
  file: string,
  store: Store,
  old: Lifecycles,
  next: Lifecycles,
  now: number,
): Promise<void> {
  for (const [name, lifecycle] of Object.entries(next)) {
    const before = Object.hasOwn(old, name) ? old[name] : undefined;
    if (!before || before.version !== lifecycle.version || !edited(before, lifecycle)) continue;
    const stranded = [];
    for (const run of await store.list({ machine: name, status: 'active' })) {
      if (restoreProblem(run, old, now) !== undefined) continue;
      const reason = restoreProblem(run, next, now);
      if (reason !== undefined) stranded.push({ runId: run.runId, state: run.state, reason });
    }
    if (stranded.length) throw new UnversionedEditError(file, name, lifecycle.version, stranded);
  }
}
