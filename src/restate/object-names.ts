/**
 * The names statewright's objects have on Restate. Each lifecycle is one virtual object keyed by run
 * id (`statewright-<lifecycle>`); the run directory (which lifecycle a run id belongs to) and the
 * worker's actor host are one object each, keyed by run id too.
 */
import type { HostedOn } from '../explain/explanation.js';

const PREFIX = 'statewright-';

/** The virtual object that holds the runs of `machine`. */
export const runObjectName = (machine: string): string => `${PREFIX}${machine}`;

/** Where a run lives on Restate, as `explain` says it: its run object and key. */
export const restateHome = (run: { readonly runId: string; readonly machine: string }): HostedOn => ({
  engine: 'restate',
  object: runObjectName(run.machine),
  key: run.runId,
});

/** The lifecycle a run object's name stands for, or undefined for any other service. */
export function machineOfObject(service: string): string | undefined {
  if (!service.startsWith(PREFIX) || service === RUN_DIRECTORY || service === ACTOR_HOST) return undefined;
  return service.slice(PREFIX.length);
}

/** Which lifecycle each run id belongs to: starting a run here makes its id taken in every lifecycle. */
export const RUN_DIRECTORY = 'statewright-runs';

/** Where the worker performs a run's actors (agents, checks): the intents its run object recorded. */
export const ACTOR_HOST = 'statewright-actors';

/**
 * The state keys of a run object, so a call reads only what it needs: the history in pages
 * (history-pages.ts: `p:<n>` full pages, `tail` the page being filled, `h:<seq>` an entry kept on
 * its own, as every entry was before pages), and one key per idempotency key.
 */
export const STATE = {
  run: 'run',
  actors: 'actors',
  delays: 'delays',
  tail: 'tail',
  page: (n: number) => `p:${n}`,
  entry: (seq: number) => `h:${seq}`,
  key: (idempotencyKey: string) => `k:${idempotencyKey}`,
} as const;

/**
 * The history entries a `history` call answers when the caller names no `limit` (clients before
 * `limit`, which take a shorter page as the last), and the least it answers when one is named.
 */
export const HISTORY_PAGE = 500;
/** The most entries one `history` call answers, whatever the `limit` asked. */
export const HISTORY_MOST = 5_000;
/** Past HISTORY_PAGE entries, a `history` call stops adding entries once its answer is this large (bytes of JSON). */
export const HISTORY_ANSWER_BYTES = 4 * 1024 * 1024;
