/**
 * The seed's run-level document (`CodonRunsState`: runs newest first, each with its codon records,
 * the current run, the initial checkpoint, the cost cache), fed from committed runs of the `codon-run`
 * and `codon` lifecycles. Nothing here is stored: the hosted runs are the truth, this is their view.
 *
 * Costs are kept per run and in total as each committed codon step changes a record's cost, so
 * `currentRunCost` and `totalCost` are O(1) and never scan the runs; only `state()` builds arrays.
 */
import type { CodonRun, CodonRunsState } from '../../machines/codon/runs.js';
import type { CodonRunContext, RunLevelStatus } from '../../machines/codon-run/context.js';
import type { CodonContext } from '../../machines/codon/context.js';
import { getCodonCost } from '../../machines/codon/record.js';
import type { CodonExecution } from '../../machines/codon/types.js';
import type { RunSnapshot } from '../runtime/run-snapshot.js';

/** One codon attempt: a hosted `codon` run. */
export interface CodonAttempt {
  /** The hosted run's id in the runtime. */
  readonly attemptId: string;
  readonly runId: string;
  readonly record: CodonExecution;
  /** Where the codon works: its checkpoints are commits of this repository. */
  readonly workTree: string;
  readonly startedAt: number;
  readonly seq: number;
}

interface RunEntry {
  run: Omit<CodonRun, 'codons'>;
  initialCheckpoint?: string;
  seq: number;
  /** Attempts by hosted run id, in the order they were seen. */
  attempts: Map<string, CodonAttempt>;
  cost: number;
  /** Order first seen: breaks ties between runs started in the same millisecond (later is newer). */
  order: number;
}

export class CodonRunsView {
  readonly #runs = new Map<string, RunEntry>();
  /** Codon attempts whose run is not known (a dangling reference, or not loaded yet). */
  readonly #orphans = new Map<string, CodonAttempt>();
  #newest: RunEntry | undefined;
  #total = 0;
  #cached: CodonRunsState | undefined;

  /** Takes a committed snapshot of a `codon-run` or `codon` run; an older one than already seen is ignored. */
  apply(snapshot: RunSnapshot): void {
    if (snapshot.machine === 'codon-run') this.#applyRun(snapshot);
    else if (snapshot.machine === 'codon') this.#applyCodon(snapshot);
  }

  #applyRun(snapshot: RunSnapshot): void {
    const context = snapshot.context as CodonRunContext;
    const known = this.#runs.get(snapshot.runId);
    if (known && known.seq >= snapshot.seq) return;
    const { initialCheckpoint, ...fields } = context;
    const run: Omit<CodonRun, 'codons'> = { ...fields, status: snapshot.state as RunLevelStatus };
    this.#cached = undefined;
    if (known) {
      known.run = run;
      known.seq = snapshot.seq;
      if (initialCheckpoint !== undefined) known.initialCheckpoint = initialCheckpoint;
      else delete known.initialCheckpoint;
      return;
    }
    const entry: RunEntry = {
      run,
      seq: snapshot.seq,
      attempts: new Map(),
      cost: 0,
      order: this.#runs.size,
      ...(initialCheckpoint !== undefined && { initialCheckpoint }),
    };
    this.#runs.set(snapshot.runId, entry);
    if (!this.#newest || run.startTime >= this.#newest.run.startTime) this.#newest = entry;
    for (const [id, attempt] of this.#orphans) {
      if (attempt.runId !== snapshot.runId) continue;
      this.#orphans.delete(id);
      this.#putAttempt(entry, attempt, undefined);
    }
  }

  #applyCodon(snapshot: RunSnapshot): void {
    const context = snapshot.context as CodonContext;
    const attempt: CodonAttempt = {
      attemptId: snapshot.runId,
      runId: context.runId,
      record: context.codon,
      workTree: context.config.workTree,
      startedAt: context.config.startedAt,
      seq: snapshot.seq,
    };
    const entry = this.#runs.get(attempt.runId);
    if (!entry) {
      const orphan = this.#orphans.get(attempt.attemptId);
      if (!orphan || orphan.seq < attempt.seq) this.#orphans.set(attempt.attemptId, attempt);
      return;
    }
    const before = entry.attempts.get(attempt.attemptId);
    if (before && before.seq >= attempt.seq) return;
    this.#putAttempt(entry, attempt, before);
  }

  #putAttempt(entry: RunEntry, attempt: CodonAttempt, before: CodonAttempt | undefined): void {
    const delta = getCodonCost(attempt.record) - (before ? getCodonCost(before.record) : 0);
    entry.attempts.set(attempt.attemptId, attempt);
    entry.cost += delta;
    this.#total += delta;
    this.#cached = undefined;
  }

  /** The run RunStarted made current, until RunCompleted or RunFailed (RunCrashed keeps it, as in the seed). */
  get currentRunId(): string | null {
    const newest = this.#newest?.run;
    return newest && (newest.status === 'running' || newest.status === 'crashed') ? newest.runId : null;
  }

  /** O(1). */
  get currentRunCost(): number {
    const current = this.currentRunId;
    return current === null ? 0 : (this.#runs.get(current)?.cost ?? 0);
  }

  /** O(1). */
  get totalCost(): number {
    return this.#total;
  }

  hasRun(runId: string): boolean {
    return this.#runs.has(runId);
  }

  runStatus(runId: string): RunLevelStatus | undefined {
    return this.#runs.get(runId)?.run.status;
  }

  /** Every attempt of `codonId` in run `runId`, oldest first. */
  attempts(runId: string, codonId: string): CodonAttempt[] {
    const entry = this.#runs.get(runId);
    if (!entry) return [];
    return sortAttempts([...entry.attempts.values()].filter((a) => a.record.codonId === codonId));
  }

  /** Every attempt, of known runs and orphans alike. */
  allAttempts(): CodonAttempt[] {
    return [...[...this.#runs.values()].flatMap((entry) => [...entry.attempts.values()]), ...this.#orphans.values()];
  }

  orphans(): CodonAttempt[] {
    return [...this.#orphans.values()];
  }

  /** The seed's document. Built on demand and kept until the next change; treat it as read-only. */
  state(): CodonRunsState {
    if (this.#cached) return this.#cached;
    const entries = [...this.#runs.values()].sort((a, b) =>
      a.run.startTime < b.run.startTime ? 1 : a.run.startTime > b.run.startTime ? -1 : b.order - a.order,
    );
    const runs: CodonRun[] = entries.map((entry) => ({
      ...entry.run,
      codons: sortAttempts([...entry.attempts.values()]).map((a) => a.record),
    }));
    const initialCheckpoint = entries.find((entry) => entry.initialCheckpoint !== undefined)?.initialCheckpoint;
    this.#cached = {
      runs,
      currentRunId: this.currentRunId,
      ...(initialCheckpoint !== undefined && { initialCheckpoint }),
      costs: { total: this.#total, currentRun: this.currentRunCost },
    };
    return this.#cached;
  }
}

function sortAttempts(attempts: CodonAttempt[]): CodonAttempt[] {
  return attempts.sort((a, b) => a.startedAt - b.startedAt || (a.attemptId < b.attemptId ? -1 : 1));
}
