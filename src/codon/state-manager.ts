/**
 * The seed's state manager (Hankweave `StateManager`) on top of the durable runtime: the 14 seed
 * events go in through `transition` (fire and forget) or `transitionAndWait`, one at a time in the
 * order given; `stateChanged` is emitted only once a step is committed; the cost cache answers
 * `getCurrentRunCost()` and `getTotalCost()` without scanning.
 *
 * Where the events go: a Hankweave run is a hosted `codon-run` run (id = the seed's runId), and each
 * codon attempt a hosted `codon` run (id `<runId>/<codonId>/<n>`) that runs its rig setup, agent,
 * sentinels and checkpoints. RunStarted and CodonStarted start them; the Run* events and
 * InitialCheckpointSet go to the run, the codon events to the codon's latest attempt. The seed's
 * document (`getState()`) is the view of both, fed from the runtime's committed steps
 * (`CodonRunsView`), so actors' reports (costs, the session id, the exit) show up there too.
 *
 * As in the seed: an `InvalidTransitionError` is reported through `transitionError` and processing
 * goes on; any other error is reported and halts the queue until the next `transition` call. Unlike
 * the seed, memory never runs ahead of the store: the view changes only after a commit. An update
 * its codon's state does not take is dropped, as the seed drops costs outside running; that
 * includes a CheckpointCreated for a codon that has ended, whose final transition already carried
 * the SHA (the seed would still record it on the terminal record).
 */
import { EventEmitter } from 'node:events';
import { InvalidTransitionError } from '../graph/invalid-transition-error.js';
import { metadataErrorFromIssues } from '../graph/metadata-guard.js';
import { parseCodonInput, type CodonInput } from '../../machines/codon/config.js';
import { RecordReferenceError } from '../../machines/codon/errors.js';
import { crashMetadata } from '../../machines/codon/record.js';
import { codon } from '../../machines/codon/status.js';
import {
  CODON_RUN_EVENT_TYPES,
  codonRunEventSchemas,
  type CodonRunEvent,
  type CodonRunsState,
} from '../../machines/codon/runs.js';
import type { ActiveCodonStatus, CodonExecution } from '../../machines/codon/types.js';
import type { AttachedService } from '../runtime/lifecycle-wiring.js';
import type { Runtime } from '../runtime/runtime.js';
import type { CommittedStep } from '../runtime/run-snapshot.js';
import { CodonRunsView, type CodonAttempt } from './runs-view.js';
import {
  corruptionOf,
  validateCodonState,
  type StateIssue,
  type StateValidation,
  type ValidationOptions,
} from './validate-state.js';

/** How a codon runs: everything of the codon machine's input that CodonStarted does not say. */
export type CodonLaunch = Omit<CodonInput, 'runId' | 'codonId' | 'startedAt' | 'loopContext'>;

/** The seed's events; CodonStarted may also carry how to run the codon (else `codonDefaults` must). */
export type CodonStateEvent =
  | Exclude<CodonRunEvent, { type: 'CodonStarted' }>
  | {
      type: 'CodonStarted';
      data: { runId: string; codonId: string; loopContext?: CodonInput['loopContext'] } & Partial<CodonLaunch>;
      at?: number;
    };

export interface TransitionErrorEvent {
  event: CodonStateEvent;
  error: Error;
}

export interface CodonRunningEvent {
  runId: string;
  codonId: string;
  attemptId: string;
  from: string | undefined;
  to: 'running';
  record: CodonExecution;
}

export interface CodonStateManagerEvents {
  /** A committed step of a codon or run: the event that caused it (none for a start) and the step. */
  stateChanged: [event: { type: string; [key: string]: unknown } | undefined, step: CommittedStep];
  /** A codon entered running (committed). */
  codonRunning: [CodonRunningEvent];
  transitionError: [TransitionErrorEvent];
}

export interface CodonStateManagerOptions {
  /** Merged under each CodonStarted's data: how codons run unless the event says otherwise. */
  codonDefaults?: Partial<CodonLaunch>;
  /** Validation on load (`manager.validation`); `false` skips it. Default: every check but orphaned folders. */
  validation?: ValidationOptions | false;
}

interface Queued {
  event: CodonStateEvent;
  resolve?: () => void;
  reject?: (error: Error) => void;
}

const RUN_LEVEL = new Set(['RunCompleted', 'RunFailed', 'RunCrashed']);

export class CodonStateManager extends EventEmitter<CodonStateManagerEvents> implements AttachedService {
  readonly runtime: Runtime;
  readonly #defaults: Partial<CodonLaunch>;
  readonly #view = new CodonRunsView();
  #queue: Queued[] = [];
  #processing: Promise<void> = Promise.resolve();
  #running = false;
  #unsubscribe: (() => void) | undefined;
  /** Steps committed while loading, applied after the stored runs (the view ignores older seqs). */
  #early: CommittedStep[] | undefined = [];
  /** Stored runs that could not be read (left out of the document). */
  #corrupted: StateIssue[] = [];
  /** What validation on load found (unless it was turned off). */
  validation: StateValidation | undefined;

  /** @internal Made by `codonLifecycle(...).attach(runtime)`, which loads it. */
  constructor(runtime: Runtime, options: CodonStateManagerOptions) {
    super();
    this.runtime = runtime;
    this.#defaults = options.codonDefaults ?? {};
  }

  /** @internal Subscribes first, then reads the store, so no commit falls between. */
  async load(): Promise<void> {
    this.#unsubscribe = this.runtime.subscribe((step) => this.#committed(step));
    const stored = [
      ...(await this.runtime.list({ machine: 'codon-run' })),
      ...(await this.runtime.list({ machine: 'codon' })),
    ];
    for (const snapshot of stored) {
      const problem = corruptionOf(snapshot);
      if (problem === undefined) this.#view.apply(snapshot);
      else
        this.#corrupted.push({
          type: 'corrupted_data',
          message: `stored ${snapshot.machine} run '${snapshot.runId}' is damaged: ${problem}`,
          runId: snapshot.runId,
        });
    }
    const early = this.#early ?? [];
    this.#early = undefined;
    for (const step of early) this.#view.apply(step.snapshot);
  }

  #committed(step: CommittedStep): void {
    if (step.machine !== 'codon' && step.machine !== 'codon-run') return;
    if (this.#early) {
      this.#early.push(step);
      return;
    }
    this.#view.apply(step.snapshot);
    this.emit('stateChanged', step.event, step);
    if (step.machine === 'codon' && step.after === 'running' && step.before !== 'running') {
      const record = step.snapshot.context.codon as CodonExecution;
      this.emit('codonRunning', {
        runId: step.snapshot.context.runId,
        codonId: record.codonId,
        attemptId: step.runId,
        from: step.before,
        to: 'running',
        record,
      });
    }
  }

  /** Fire and forget: queued and applied in order; a refusal is emitted as `transitionError`. */
  transition(event: CodonStateEvent): void {
    this.#queue.push({ event });
    this.#kick();
  }

  /** Queued like `transition`; resolves once it is committed, rejects with the refusal. */
  transitionAndWait(event: CodonStateEvent): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ event, resolve, reject });
      this.#kick();
    });
  }

  /**
   * Resolves when the queue is processed: empty, or halted by an error other than an invalid
   * transition (already reported; the next `transition` call resumes it).
   */
  async waitForPendingTransitions(): Promise<void> {
    while (this.#running) await this.#processing;
  }

  /** Events queued and not yet applied (a halted queue keeps them). */
  get pendingCount(): number {
    return this.#queue.length;
  }

  #kick(): void {
    if (this.#running) return;
    this.#running = true;
    this.#processing = this.#process();
  }

  async #process(): Promise<void> {
    try {
      await undefined; // never finishes within #kick, so #running is cleared after it was set
      for (let item = this.#queue.shift(); item; item = this.#queue.shift()) {
        try {
          await this.#apply(item.event);
          item.resolve?.();
        } catch (error) {
          this.#report(item.event, error as Error);
          item.reject?.(error as Error);
          if (!(error instanceof InvalidTransitionError)) return; // halts, as the seed's queue does
        }
      }
    } finally {
      // Cleared in the same turn the last item is answered: a caller told of it may kick at once.
      this.#running = false;
    }
  }

  #report(event: CodonStateEvent, error: Error): void {
    if (this.listenerCount('transitionError') === 0) {
      process.stderr.write(`statewright codon: ${event.type} refused: ${error.message}\n`);
      return;
    }
    this.emit('transitionError', { event, error });
  }

  async #apply(event: CodonStateEvent): Promise<void> {
    const type = (event as { type?: unknown }).type;
    if (!CODON_RUN_EVENT_TYPES.includes(type as never)) {
      throw new InvalidTransitionError(
        '(run level)',
        String(type),
        `Unknown event type '${String(type)}': expected one of ${CODON_RUN_EVENT_TYPES.join(', ')}`,
      );
    }
    const at = event.at ?? this.runtime.clock.now();
    const stamped = { ...event, at } as CodonStateEvent & { at: number };
    if (stamped.type === 'RunStarted') return this.#runStarted(stamped);
    if (stamped.type === 'CodonStarted') return this.#codonStarted(stamped);
    if (stamped.type === 'InitialCheckpointSet') {
      const current = this.#view.currentRunId;
      if (current === null)
        throw new RecordReferenceError(
          'InitialCheckpointSet',
          '',
          undefined,
          'there is no current run. Send RunStarted first.',
        );
      await this.runtime.dispatch(current, stamped, { actor: 'state-manager' });
      return;
    }
    const data = stamped.data as { runId?: unknown; codonId?: unknown };
    const schema = codonRunEventSchemas[stamped.type];
    const parsed = schema.safeParse(stamped.data);
    if (!parsed.success) throw metadataErrorFromIssues(stamped.type, stamped.data, parsed.error.issues);
    const runId = String(data.runId);
    if (!this.#view.hasRun(runId))
      throw new RecordReferenceError(
        stamped.type,
        runId,
        undefined,
        `no run '${runId}'. Send RunStarted for it first.`,
      );
    if (stamped.type === 'RunCrashed') await this.#crashActiveCodons(runId, at);
    if (RUN_LEVEL.has(stamped.type)) {
      await this.runtime.dispatch(runId, stamped, { actor: 'state-manager' });
      return;
    }
    await this.#toCodon(runId, String(data.codonId), stamped);
  }

  async #runStarted(event: Extract<CodonStateEvent, { type: 'RunStarted' }> & { at: number }): Promise<void> {
    const parsed = codonRunEventSchemas.RunStarted.safeParse(event.data);
    if (!parsed.success) throw metadataErrorFromIssues('RunStarted', event.data, parsed.error.issues);
    const { runId } = event.data;
    if (this.#view.hasRun(runId))
      throw new RecordReferenceError(
        'RunStarted',
        runId,
        undefined,
        `run '${runId}' already exists. Start a new run under a new id.`,
      );
    await this.runtime.start('codon-run', { id: runId, input: { ...event.data, startedAt: event.at } });
  }

  async #codonStarted(event: Extract<CodonStateEvent, { type: 'CodonStarted' }> & { at: number }): Promise<void> {
    const { runId, codonId, loopContext, ...launch } = event.data;
    const status = this.#view.runStatus(runId);
    if (status === undefined)
      throw new RecordReferenceError(
        'CodonStarted',
        runId,
        codonId,
        `no run '${runId}'. Send RunStarted for it first.`,
      );
    if (status !== 'running')
      throw new InvalidTransitionError(
        status,
        'CodonStarted',
        `Invalid transition: run '${runId}' is ${status}; CodonStarted applies only to a running run`,
      );
    const attempts = this.#view.attempts(runId, codonId);
    const active = attempts.find((a) => !codon.isTerminal(a.record.status));
    if (active)
      throw new RecordReferenceError(
        'CodonStarted',
        runId,
        codonId,
        `codon '${codonId}' is still ${active.record.status} in run '${runId}'; it can start again once it has ended.`,
      );
    // Validated here so a bad launch is a MetadataValidationError naming the fields, before anything starts.
    const input = parseCodonInput({
      ...this.#defaults,
      ...launch,
      runId,
      codonId,
      startedAt: event.at,
      ...(loopContext && { loopContext }),
    });
    await this.runtime.start('codon', { id: `${runId}/${codonId}/${attempts.length + 1}`, input });
  }

  /** Seed RunCrashed: the run's non-terminal codon fails with "Server crashed", its partial cost kept. */
  async #crashActiveCodons(runId: string, at: number): Promise<void> {
    for (const attempt of this.#view.allAttempts()) {
      if (attempt.runId !== runId || codon.isTerminal(attempt.record.status)) continue;
      const from = attempt.record.status as ActiveCodonStatus;
      const event = {
        type: 'CodonTransitioned',
        data: { runId, codonId: attempt.record.codonId, from, to: 'failed', metadata: crashMetadata(from) },
        at,
      };
      await this.runtime.dispatch(attempt.attemptId, event, { actor: 'state-manager', reason: 'RunCrashed' });
    }
  }

  async #toCodon(runId: string, codonId: string, event: CodonStateEvent & { at: number }): Promise<void> {
    const latest = this.#view.attempts(runId, codonId).at(-1);
    if (!latest)
      throw new RecordReferenceError(
        event.type,
        runId,
        codonId,
        `no codon '${codonId}' in run '${runId}'. Send CodonStarted first.`,
      );
    if (event.type === 'CodonTransitioned') {
      await this.runtime.dispatch(latest.attemptId, event, { actor: 'state-manager' });
      return;
    }
    // The seed ignores an update its record's state does not take (costs outside running): dropped, not refused.
    await this.runtime.dispatch(latest.attemptId, event, { actor: 'state-manager' }).catch((error: Error) => {
      if (!(error instanceof InvalidTransitionError)) throw error;
    });
  }

  /**
   * Asks a running codon to stop its agent and end as skipped (`codon.skip`), or as failed
   * (`codon.stop`, the source's force-stop). Resolves once the request is committed; the codon
   * ends when its agent has exited and the checkpoint is made.
   */
  async requestStop(runId: string, codonId: string, kind: 'skip' | 'force', reason?: string): Promise<void> {
    const latest = this.#view.attempts(runId, codonId).at(-1);
    if (!latest)
      throw new RecordReferenceError(
        `codon.${kind === 'skip' ? 'skip' : 'stop'}`,
        runId,
        codonId,
        `no codon '${codonId}' in run '${runId}'.`,
      );
    await this.runtime.dispatch(
      latest.attemptId,
      { type: kind === 'skip' ? 'codon.skip' : 'codon.stop', ...(reason && { reason }) },
      { actor: 'state-manager' },
    );
  }

  /** The seed's document: runs newest first with their codons, the current run, costs. Read-only. */
  getState(): CodonRunsState {
    return this.#view.state();
  }

  /** The latest attempt's record of a codon, if it exists. */
  getCodon(runId: string, codonId: string): CodonExecution | undefined {
    return this.#view.attempts(runId, codonId).at(-1)?.record;
  }

  /** Every attempt of a codon, oldest first, with its hosted run id. */
  getAttempts(runId: string, codonId: string): CodonAttempt[] {
    return this.#view.attempts(runId, codonId);
  }

  get currentRunId(): string | null {
    return this.#view.currentRunId;
  }

  /** O(1): the cache, kept current commit by commit. */
  getCurrentRunCost(): number {
    return this.#view.currentRunCost;
  }

  /** O(1): the cache, kept current commit by commit. */
  getTotalCost(): number {
    return this.#view.totalCost;
  }

  /** The seed's validation: corrupted_data, missing_run, missing_checkpoint (SHAs looked up in git), orphaned_folder (a warning). */
  validate(options: ValidationOptions = {}): Promise<StateValidation> {
    return validateCodonState(this.#view, this.#corrupted, options);
  }

  /** Waits for the queue, then stops following the runtime (the runtime and its store stay open). */
  async close(): Promise<void> {
    await this.waitForPendingTransitions();
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }
}
