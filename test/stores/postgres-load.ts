/**
 * Load for the Postgres fault tests: a runtime on a Postgres store drives counter runs with
 * concurrent dispatches, each event carrying a mark of its own, while a test breaks connections.
 * Every answer is recorded, and `audit` compares each one with what the store holds: an
 * acknowledged event must be stored exactly once, a refused one (StoreUnavailableError) not at all.
 * An error that escapes as an uncaught exception or rejection is counted too: the host must live.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'vitest';
import { assign, setup } from 'xstate';
import type { Lifecycle } from '../../machines/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { postgresStore, type PostgresStoreOptions } from '../../src/stores/postgres/postgres-store.js';
import type { Store } from '../../src/stores/store.js';

const counter = setup({
  types: { context: {} as { count: number }, events: {} as { type: 'ADD'; mark: string } },
}).createMachine({
  id: 'counter',
  initial: 'counting',
  context: { count: 0 },
  states: { counting: { on: { ADD: { actions: assign({ count: ({ context }) => context.count + 1 }) } } } },
});
const machines = { counter: { machine: counter, version: 1, summary: 'counts marked events' } satisfies Lifecycle };

/** What one dispatch was answered: acknowledged at a seq, or refused with an error's name. */
type Answer =
  | { mark: string; runId: string; seq: number }
  | { mark: string; runId: string; refused: string; message: string };

export interface Audit {
  events: number;
  acknowledged: number;
  /** Refused with StoreUnavailableError: nothing applied, retry safe. */
  refused: number;
  /** Refused with CommitOutcomeUnknownError: either way is allowed, but it is counted, with its messages. */
  unknown: number;
  unknownReasons: string[];
  /** Refused with anything else (CommitConflictError, a raw pg error): must be 0. */
  otherRefusals: string[];
  acknowledgedLost: number;
  refusedButCommitted: number;
  appliedTwice: number;
  /** Runs whose stored row disagrees with their history (seq, count, or holes in the seqs). */
  inconsistentRuns: string[];
  uncaught: string[];
}

export interface Load {
  readonly store: Store;
  readonly runtime: Runtime;
  /** Events answered so far (either way). */
  readonly answered: number;
  /** Resolves once `more` further events have been answered. */
  progress(more: number): Promise<void>;
  /** Stops sending, waits for the answers in flight, sends one more event to each run (which must commit), and audits. */
  finish(): Promise<Audit>;
}

/**
 * Starts `runs` runs on a store opened with `options` and dispatches to each of them, one event at
 * a time per run, all runs at once, until `finish`. Run starts are retried until they commit.
 */
export async function startLoad(options: PostgresStoreOptions, runs: number): Promise<Load> {
  const uncaught: string[] = [];
  const onUncaught = (error: unknown) => void uncaught.push(String((error as Error)?.stack ?? error));
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);

  const store = await postgresStore(options);
  const runtime = await createRuntime({ store, machines });
  const answers: Answer[] = [];
  const waiters: Array<{ at: number; resolve: () => void }> = [];
  const answer = (a: Answer) => {
    answers.push(a);
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (answers.length >= waiters[i]!.at) waiters.splice(i, 1)[0]!.resolve();
    }
  };
  let stopping = false;
  let marks = 0;

  const ids = Array.from({ length: runs }, (_, i) => `run-${i}`);
  const drive = async (runId: string) => {
    while (
      !(await runtime.start('counter', { id: runId }).then(
        () => true,
        () => false,
      ))
    ) {
      // A start refused by a lost connection is tried again; one that did commit is found and kept.
      if (await store.load(runId).catch(() => undefined)) break;
    }
    while (!stopping) {
      const mark = `${runId}/${marks++}`;
      try {
        const snapshot = await runtime.dispatch(runId, { type: 'ADD', mark });
        answer({ mark, runId, seq: snapshot.seq });
      } catch (error) {
        answer({ mark, runId, refused: (error as Error).name, message: (error as Error).message });
        // A client's retry policy: while the server is away, each refusal comes at once.
        await delay(10);
      }
    }
  };
  const drivers = Promise.all(ids.map(drive));

  return {
    store,
    runtime,
    get answered() {
      return answers.length;
    },
    progress(more) {
      const at = answers.length + more;
      return new Promise((resolve) => (answers.length >= at ? resolve() : waiters.push({ at, resolve })));
    },
    async finish() {
      stopping = true;
      await drivers;
      // The run must commit again after the faults, not hit a conflict with its own lost commit.
      for (const runId of ids) {
        const mark = `${runId}/last`;
        const snapshot = await runtime.dispatch(runId, { type: 'ADD', mark });
        answer({ mark, runId, seq: snapshot.seq });
      }
      const audit = await auditAnswers(store, ids, answers);
      audit.uncaught = uncaught;
      await runtime.close();
      await store.close();
      process.off('uncaughtException', onUncaught);
      process.off('unhandledRejection', onUncaught);
      return audit;
    },
  };
}

async function auditAnswers(store: Store, runIds: string[], answers: Answer[]): Promise<Audit> {
  const stored = new Map<string, number[]>(); // mark -> the seqs it is stored at
  const inconsistentRuns: string[] = [];
  for (const runId of runIds) {
    const history = await store.history(runId);
    const row = await store.load(runId);
    const count = (row?.snapshot as { context?: { count?: number } } | undefined)?.context?.count;
    if (!row || row.seq !== history.length || count !== history.length || history.some((e, i) => e.seq !== i + 1))
      inconsistentRuns.push(runId);
    for (const event of history) {
      const mark = String(event.event.mark);
      stored.set(mark, [...(stored.get(mark) ?? []), event.seq]);
    }
  }
  const audit: Audit = {
    events: answers.length,
    acknowledged: 0,
    refused: 0,
    unknown: 0,
    unknownReasons: [],
    otherRefusals: [],
    acknowledgedLost: 0,
    refusedButCommitted: 0,
    appliedTwice: 0,
    inconsistentRuns,
    uncaught: [],
  };
  for (const a of answers) {
    const seqs = stored.get(a.mark) ?? [];
    if (seqs.length > 1) audit.appliedTwice++;
    if ('seq' in a) {
      audit.acknowledged++;
      if (!seqs.includes(a.seq)) audit.acknowledgedLost++;
    } else if (a.refused === 'StoreUnavailableError') {
      audit.refused++;
      if (seqs.length) audit.refusedButCommitted++;
    } else if (a.refused === 'CommitOutcomeUnknownError') {
      audit.unknown++;
      audit.unknownReasons.push(a.message);
    } else audit.otherRefusals.push(`${a.mark}: ${a.refused}: ${a.message}`);
  }
  return audit;
}

/** The invariants every fault test holds, whatever the fault. */
export function expectNothingLost(audit: Audit): void {
  expect(audit.uncaught).toEqual([]);
  expect(audit.otherRefusals).toEqual([]);
  expect(audit.inconsistentRuns).toEqual([]);
  expect({
    lost: audit.acknowledgedLost,
    refusedButCommitted: audit.refusedButCommitted,
    twice: audit.appliedTwice,
  }).toEqual({
    lost: 0,
    refusedButCommitted: 0,
    twice: 0,
  });
}

/** Prints the figures of a fault test (docs/reliability.md quotes them). */
export const reportLoad = (what: string, audit: Audit, extra: Record<string, number>) =>
  console.log(
    `${what}: ${JSON.stringify({ ...extra, events: audit.events, acknowledged: audit.acknowledged, refused: audit.refused, unknown: audit.unknown })}` +
      audit.unknownReasons.map((reason) => `\n  unknown: ${reason}`).join(''),
  );
