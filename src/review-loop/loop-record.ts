/**
 * The files one review loop keeps in its directory: the manifest, the transcript, the bridge
 * between the agents, and each agent run's raw stream. The runtime's store is the truth about the
 * state; these are kept in step with it, one committed step at a time (`committed`), so a person
 * (or agentpair's tooling) can read where a loop stands without the store.
 *
 * Writes are serialized: each committed step and each agent report is written in the order it
 * arrived, and `settled()` waits for all of them.
 */
import { join } from 'node:path';
import type { AgentThreadUsage } from '../../machines/agent-input.js';
import type { AgentRole, ReviewLoopContext, ReviewLoopState } from '../../machines/review-loop/index.js';
import type { Clock } from '../actor-contract/clock.js';
import { makePrivateDir } from '../os/private-files.js';
import type { CommittedStep, RunSnapshot } from '../runtime/run-snapshot.js';
import { loadManifest, MANIFEST_VERSION, writeManifest, withRunState, type Manifest } from './manifest.js';
import { MessageLog } from './message-log.js';
import { toRunState } from './run-state.js';
import type { LoopSettings } from './settings.js';
import {
  readTranscript,
  TRANSCRIPT_FILE,
  TranscriptWriter,
  type TranscriptEntry,
  type TranscriptEvent,
} from './transcript.js';

export const runDirOf = (root: string, runId: string) => join(root, runId);
export const agentLogPath = (runDir: string, role: AgentRole, iteration: number) =>
  join(runDir, 'agents', `${role}-${iteration}.jsonl`);

export type EntryListener = (entry: TranscriptEntry) => void;

/** A result that reported its thread's usage in all (a Codex turn): what the run resuming the thread takes off. */
interface ThreadTotal {
  readonly agent: AgentRole;
  readonly iteration: number;
  readonly thread: AgentThreadUsage;
}

function threadTotal(event: TranscriptEvent): ThreadTotal | undefined {
  if (event.type !== 'result' || !event.sessionId || !event.threadUsage) return undefined;
  return {
    agent: event.agent,
    iteration: event.iteration,
    thread: { sessionId: event.sessionId, usage: event.threadUsage },
  };
}

/** Keys of transcript entries that an agent's log produces again when it is re-read after a restart. */
function entryKeys(entries: readonly TranscriptEntry[]): Set<string> {
  const keys = new Set<string>();
  const assistants = new Map<string, number>();
  for (const e of entries) {
    if (e.type === 'iteration') keys.add(`iteration:${e.iteration}`);
    if (e.type === 'end') keys.add('end');
    if (e.type === 'execution') keys.add(`execution:${e.agent}:${e.iteration}:${e.pid ?? ''}`);
    if (e.type === 'result' || e.type === 'signal') keys.add(`${e.type}:${e.agent}:${e.iteration}`);
    if (e.type === 'assistant') {
      const at = `${e.agent}:${e.iteration}`;
      const n = assistants.get(at) ?? 0;
      assistants.set(at, n + 1);
      keys.add(`assistant:${at}:${n}`);
    }
  }
  return keys;
}

export class LoopRecord {
  #manifest: Manifest;
  #chain: Promise<void> = Promise.resolve();
  #failure: Error | undefined;
  readonly #listeners = new Set<EntryListener>();

  private constructor(
    readonly runDir: string,
    manifest: Manifest,
    readonly transcript: TranscriptWriter,
    readonly messages: MessageLog,
    /** Entries already in the transcript that a re-read agent log would repeat. */
    private readonly written: Set<string>,
    /** Damage found in the files when they were opened (a torn line, a bad manifest copy). */
    readonly problems: readonly string[],
    /** The thread totals the transcript holds, oldest first; each result noted adds its own. */
    private readonly threadTotals: ThreadTotal[],
  ) {
    this.#manifest = manifest;
  }

  /** Creates the directory and files of a new loop: the manifest as `submitted`, the transcript's start entry. */
  static async create(
    runDir: string,
    runId: string,
    settings: LoopSettings,
    options: { clock: Clock; repoPath: string; listener?: EntryListener },
  ): Promise<LoopRecord> {
    await makePrivateDir(join(runDir, 'agents'));
    const at = new Date(options.clock.now()).toISOString();
    const manifest: Manifest = {
      version: MANIFEST_VERSION,
      runId,
      repoPath: options.repoPath,
      state: 'submitted',
      iteration: 0,
      settings,
      sessions: {},
      createdAt: at,
      updatedAt: at,
    };
    await writeManifest(runDir, manifest);
    const record = await LoopRecord.#openFiles(runDir, manifest, options.clock, []);
    if (options.listener) record.listen(options.listener);
    await record.note({
      type: 'start',
      runId,
      prompt: settings.prompt,
      mode: settings.reviewer ? 'paired' : 'single',
      maxIterations: settings.maxIterations,
    });
    return record;
  }

  /** Opens an existing loop's files (a resumed or restored run), falling back to the manifest's backup if need be. */
  static async open(runDir: string, options: { clock: Clock }): Promise<LoopRecord> {
    const loaded = await loadManifest(runDir);
    return LoopRecord.#openFiles(
      runDir,
      loaded.manifest,
      options.clock,
      loaded.problems.map((p) => `${p.path}: ${p.reason}`),
    );
  }

  static async #openFiles(runDir: string, manifest: Manifest, clock: Clock, problems: string[]): Promise<LoopRecord> {
    await makePrivateDir(join(runDir, 'agents'));
    const path = join(runDir, TRANSCRIPT_FILE);
    const { entries } = await readTranscript(path);
    const transcript = await TranscriptWriter.open(path, { clock });
    const messages = await MessageLog.open(runDir, { clock });
    const found = [
      ...problems,
      ...[...transcript.problems, ...messages.problems].map((p) => `${p.path}:${p.line}: ${p.reason}`),
    ];
    const totals = entries.flatMap((entry) => threadTotal(entry) ?? []);
    return new LoopRecord(runDir, manifest, transcript, messages, entryKeys(entries), found, totals);
  }

  get manifest(): Manifest {
    return this.#manifest;
  }

  get settings(): LoopSettings {
    return this.#manifest.settings as LoopSettings;
  }

  /**
   * The usage `sessionId` had in all before `iteration`, as the last earlier result of `agent` in
   * that thread reported it: what the run resuming the thread takes off its own (Codex counts the
   * whole thread). Kept in the transcript, so a restarted runner has it too.
   */
  threadUsageBefore(agent: AgentRole, sessionId: string, iteration: number): AgentThreadUsage | undefined {
    return this.threadTotals.findLast(
      (t) => t.agent === agent && t.iteration < iteration && t.thread.sessionId === sessionId,
    )?.thread;
  }

  /** Hears every transcript entry written from now on. */
  listen(listener: EntryListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Appends a transcript entry. With `key`, an entry already written under that key (before a
   * crash, from an agent log now read again) is not written twice.
   */
  note(event: TranscriptEvent, key?: string): Promise<void> {
    if (key !== undefined) {
      if (this.written.has(key)) return this.#chain;
      this.written.add(key);
    }
    const total = threadTotal(event);
    if (total) this.threadTotals.push(total);
    return this.#enqueue(async () => {
      const entry = await this.transcript.write(event);
      for (const listener of this.#listeners) listener(entry);
    });
  }

  /** Brings the manifest and transcript up to a committed step of this run. */
  committed(step: CommittedStep): Promise<void> {
    const context = step.snapshot.context as ReviewLoopContext;
    const previous = this.#manifest.iteration;
    const reentered = step.before === step.after && context.iteration !== previous;
    if (step.event && step.before !== undefined && (step.before !== step.after || reentered)) {
      void this.note({
        type: 'state',
        from: step.before as ReviewLoopState,
        to: step.after as ReviewLoopState,
        event: step.event.type,
      });
    }
    if (context.iteration > previous)
      void this.note({ type: 'iteration', iteration: context.iteration }, `iteration:${context.iteration}`);
    const done = this.#sync(step.snapshot);
    if (step.snapshot.status === 'done' && step.event) void this.#noteEnd(step.snapshot);
    return done;
  }

  /**
   * Brings the files up to a stored snapshot, on resume: a runner killed between a commit and its
   * writes left the manifest behind, and the transcript without that iteration or the end.
   */
  reconcile(snapshot: RunSnapshot): Promise<void> {
    const context = snapshot.context as ReviewLoopContext;
    if (context.iteration > 0)
      void this.note({ type: 'iteration', iteration: context.iteration }, `iteration:${context.iteration}`);
    if (snapshot.status !== 'active') void this.#noteEnd(snapshot);
    return this.#sync(snapshot);
  }

  #noteEnd(snapshot: RunSnapshot): Promise<void> {
    const context = snapshot.context as ReviewLoopContext;
    return this.note(
      {
        type: 'end',
        state: snapshot.state as 'complete' | 'failed',
        iterations: context.iteration,
        ...(context.reason !== undefined && { reason: context.reason }),
        ...(context.error !== undefined && { error: context.error }),
      },
      'end',
    );
  }

  #sync(snapshot: RunSnapshot): Promise<void> {
    const context = snapshot.context as ReviewLoopContext;
    const next: Manifest = {
      ...withRunState(this.#manifest, toRunState(snapshot.state as ReviewLoopState), snapshot.updatedAt, {
        iteration: context.iteration,
        ...(context.reason !== undefined && { reason: context.reason }),
        ...(context.error !== undefined && { error: context.error }),
      }),
      sessions: { ...context.sessions },
    };
    this.#manifest = next;
    return this.#enqueue(() => writeManifest(this.runDir, next));
  }

  #enqueue(write: () => Promise<void>): Promise<void> {
    const next = this.#chain.then(write);
    // One failed write must not stop the ones after it; the first failure is kept for settled().
    this.#chain = next.catch((error: Error) => {
      this.#failure ??= error;
    });
    return next;
  }

  /** Resolves when every write so far is on disk; rejects with the first write that failed. */
  async settled(): Promise<void> {
    await this.#chain;
    if (this.#failure) throw this.#failure;
  }

  async close(): Promise<void> {
    await this.#chain;
    await this.transcript.close();
    await this.messages.close();
  }
}
