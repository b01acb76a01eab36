/**
 * One lifecycle as a Restate virtual object keyed by run id: the runtime's durable send, with
 * Restate serializing each run's calls and journaling each step. A send reads the stored run, takes
 * the step (run-steps.ts) and refuses before writing anything, or writes the new row, its audit
 * entry (into the history's page being filled, history-pages.ts: no call carries the whole
 * history), the idempotency key's result, and the run's live actors, then hands the step's intents
 * on: deadlines as delayed calls to `fire`, actors to the worker (`statewright-actors`). Reads
 * (`snapshot`, `history`, `explain`, `actors`) are shared handlers: they do not queue behind sends.
 * State is lazy: a call fetches only the keys it reads, those it needs at once together.
 */
import * as restate from '@restatedev/restate-sdk';
import type { Clock } from '../actor-contract/clock.js';
import type { SendOptions } from '../actor-contract/run-handle.js';
import { explainRun } from '../explain/index.js';
import type { Explanation } from '../explain/index.js';
import { MalformedEventError, RunExistsError, UnknownRunError } from '../runtime/errors.js';
import type { StartInput } from '../runtime/lifecycle-wiring.js';
import { toRunSnapshot, type RunSnapshot } from '../runtime/run-snapshot.js';
import type { StoredRun } from '../stores/store.js';
import { ok, refused, type Answer } from './answer.js';
import { checked, type CallerCheck } from './caller-check.js';
import { afterDelays, afterIntents, workerIntents, type LiveActors, type PendingDelays } from './intents.js';
import type { PagedEntry } from './history-entries.js';
import { answerSerde, appendEntry, historyAnswer, readHistory, readTail } from './history-pages.js';
import { readState } from './state-read.js';
import {
  ACTOR_HOST,
  HISTORY_ANSWER_BYTES,
  HISTORY_MOST,
  HISTORY_PAGE,
  restateHome,
  runObjectName,
  STATE,
} from './object-names.js';
import type { RunEventIn, RunSteps, TakenStep } from './run-steps.js';

export interface StartRequest {
  readonly input?: unknown;
  /** The client's clock at the start: the run's `createdAt`. */
  readonly at?: number;
}

export interface SendRequest {
  readonly event: RunEventIn;
  readonly options?: SendOptions;
}

export interface FireDelayRequest {
  /** XState's id of the delayed event (an `after` delay's event type). */
  readonly id: string;
  /** The step that scheduled it: a later step that scheduled it again replaces it. */
  readonly seq: number;
}

export interface HistoryRequest {
  /** The seq the answer starts after (default 0: from the first entry). */
  readonly after?: number;
  /**
   * The most entries wanted (at most HISTORY_MOST). Named, the answer says whether `more` follow;
   * unnamed, it has HISTORY_PAGE entries at most, and a shorter one is the last (older clients).
   */
  readonly limit?: number;
}

/**
 * A `history` answer: its entries, and (to a caller that named a `limit`) whether more follow them;
 * then the entries leave out the run id (the call's key), which the caller puts back, and a whole
 * page comes packed, as a string (history-pages.ts's `unpackPage`).
 */
export type HistoryAnswer = Answer<Array<PagedEntry | string>> & { readonly more?: boolean };

export interface FireRequest {
  readonly deadline: number;
  readonly event: { readonly type: string; readonly [key: string]: unknown };
}

/** How long Restate keeps the answer of a call with an idempotency key (the client's retries of it). */
export const IDEMPOTENCY_RETENTION_MS = 3_600_000;

export interface RunObjectOptions {
  readonly steps: RunSteps;
  /** The clock deadlines are counted on; default the time Restate journals for the call (`ctx.date.now()`). */
  readonly clock: Clock | undefined;
  /** Whether a worker performs the runs' actors (an actor host is registered): their intents are sent to it. */
  readonly worker: boolean;
  /** What the lifecycle's service fills in a run's input at its start (a session's `created_at`, `log_path`). */
  readonly startInput?: StartInput | undefined;
  /** Who may call the handlers a client calls (caller-check.ts); the others are private to Restate. */
  readonly check: CallerCheck;
}

type Ctx = restate.ObjectContext;
type Shared = restate.ObjectSharedContext;

export function runObject(machine: string, { steps, worker, clock, startInput, check }: RunObjectOptions) {
  /** Now, journaled: a replay of the handler computes the same delays. */
  const now = (ctx: Shared): Promise<number> => (clock ? ctx.run('now', () => clock.now()) : ctx.date.now());

  const name = runObjectName(machine);
  /** Whether the machine has `after` delays, whose pending calls each step must prune as it leaves their states. */
  const delayed = hasAfterDelays(steps.lifecycles[machine]!.machine.root);

  /** Writes a step taken and hands its intents on; `fired`: the delayed event the step was. */
  async function write(
    ctx: Ctx,
    step: TakenStep,
    tail: readonly PagedEntry[] | null,
    key: string | undefined,
    fired?: string,
  ): Promise<RunSnapshot> {
    const { run, entry, intents } = step;
    const view = toRunSnapshot(run);
    ctx.set(STATE.run, run);
    if (entry) appendEntry(ctx, tail, entry);
    if (key !== undefined) ctx.set(STATE.key(key), view);
    if (intents.length) {
      const live = (await ctx.get<LiveActors>(STATE.actors)) ?? {};
      const next = afterIntents(live, intents);
      if (Object.keys(next).length) ctx.set(STATE.actors, next);
      else ctx.clear(STATE.actors);
      const at = await now(ctx);
      for (const intent of intents) {
        if (intent.kind !== 'arm') continue;
        ctx.genericSend({
          service: name,
          method: 'fire',
          key: run.runId,
          parameter: { deadline: intent.deadline, event: intent.event } satisfies FireRequest,
          inputSerde: restate.serde.json,
          delay: Math.max(0, intent.deadline - at),
          name: `deadline ${intent.event.type}`,
        });
      }
      for (const intent of intents) {
        if (intent.kind !== 'delay') continue;
        ctx.genericSend({
          service: name,
          method: 'fireDelay',
          key: run.runId,
          parameter: { id: intent.id, seq: run.seq } satisfies FireDelayRequest,
          inputSerde: restate.serde.json,
          delay: Math.max(0, run.updatedAt + intent.delay - at),
          name: `delayed ${intent.event.type}`,
        });
      }
      const forWorker = workerIntents(live, intents);
      if (worker && forWorker.length)
        ctx.genericSend({
          service: ACTOR_HOST,
          method: 'perform',
          key: run.runId,
          parameter: { machine, intents: forWorker },
          inputSerde: restate.serde.json,
        });
    }
    if (delayed || fired !== undefined || intents.some((intent) => intent.kind === 'delay')) {
      const pending = (await ctx.get<PendingDelays>(STATE.delays)) ?? {};
      setOrClear(
        ctx,
        STATE.delays,
        afterDelays(pending, intents, {
          seq: run.seq,
          at: run.updatedAt,
          activeAfters: step.activeAfters,
          ...(fired !== undefined && { fired }),
        }),
      );
    }
    return view;
  }

  async function applyEvent(
    ctx: Ctx,
    event: RunEventIn,
    options: SendOptions,
    fired?: string,
  ): Promise<Answer<RunSnapshot>> {
    // What the step reads, fetched together: one round trip to Restate, not one a key.
    const key = options.idempotencyKey;
    const reads: Array<restate.RestatePromise<unknown>> = [readState<StoredRun>(ctx, STATE.run), readTail(ctx)];
    if (key !== undefined) reads.push(readState<RunSnapshot>(ctx, STATE.key(key)));
    const [stored, tail, earlier] = (await restate.RestatePromise.all(reads)) as [
      StoredRun | null,
      PagedEntry[] | null,
      RunSnapshot | null | undefined,
    ];
    if (!stored) return refused(new UnknownRunError(ctx.key));
    if (earlier) return ok(earlier);
    const outcome = steps.step(stored, event, options);
    if ('refused' in outcome || 'dropped' in outcome) {
      // A delayed event the state no longer takes has fired all the same: it is pending no more.
      if (fired !== undefined) {
        const { [fired]: _gone, ...rest } = (await ctx.get<PendingDelays>(STATE.delays)) ?? {};
        setOrClear(ctx, STATE.delays, rest);
      }
      return 'refused' in outcome ? refused(outcome.refused) : ok(toRunSnapshot(stored));
    }
    return ok(await write(ctx, outcome, tail, key, fired));
  }

  return restate.object({
    name,
    description: `statewright runs of the '${machine}' lifecycle, keyed by run id`,
    // Every client call carries an idempotency key so that a retry after a lost answer applies nothing
    // twice; its answer is kept for an hour (Restate's default is a day), which covers any retry.
    options: { enableLazyState: true, idempotencyRetention: IDEMPOTENCY_RETENTION_MS },
    handlers: {
      /** Starts the run `ctx.key`: called by the run directory only (it keeps ids unique across lifecycles, and checks the caller). */
      start: restate.handlers.object.exclusive(
        { ingressPrivate: true },
        async (ctx: Ctx, request: StartRequest): Promise<Answer<RunSnapshot>> => {
          if (await ctx.get<StoredRun>(STATE.run)) return refused(new RunExistsError(ctx.key));
          const at = request?.at ?? (await ctx.date.now());
          const input = startInput ? startInput(request?.input, { runId: ctx.key, now: at }) : request?.input;
          const outcome = steps.start(ctx.key, machine, input, at);
          if ('refused' in outcome) return refused(outcome.refused);
          if ('dropped' in outcome) throw new restate.TerminalError('a start cannot be dropped');
          return ok(await write(ctx, outcome, null, undefined));
        },
      ),

      send: checked(check, async (ctx: Ctx, request: SendRequest): Promise<Answer<RunSnapshot>> => {
        // Refused as a value, typed: a body with no event would otherwise throw, and Restate retry it.
        if (typeof request?.event?.type !== 'string')
          return refused(
            new MalformedEventError(request?.event, 'the send request carries no event with a string type'),
          );
        const at = typeof request.event.at === 'number' ? request.event.at : await ctx.date.now();
        return applyEvent(ctx, { ...request.event, at }, request.options ?? {});
      }),

      /** A deadline's delayed call (from this object only): its event, if the deadline is still armed (its state not left since). */
      fire: restate.handlers.object.exclusive(
        { ingressPrivate: true },
        async (ctx: Ctx, request: FireRequest): Promise<Answer<RunSnapshot> | null> => {
          const stored = await ctx.get<StoredRun>(STATE.run);
          if (!stored || !steps.armed(stored, request.deadline, request.event.type)) return null;
          return applyEvent(
            ctx,
            { ...request.event, at: request.deadline },
            {
              actor: 'timer',
              reason: `deadline ${new Date(request.deadline).toISOString()} reached`,
              idempotencyKey: `deadline:${request.event.type}:${request.deadline}`,
              ifAccepted: true,
            },
          );
        },
      ),

      /** A delayed event's call (an `after` delay, from this object only): its event, if the step that scheduled it is still the last to. */
      fireDelay: restate.handlers.object.exclusive(
        { ingressPrivate: true },
        async (ctx: Ctx, request: FireDelayRequest): Promise<Answer<RunSnapshot> | null> => {
          const pending = (await ctx.get<PendingDelays>(STATE.delays)) ?? {};
          const delay = pending[request.id];
          if (!delay || delay.seq !== request.seq) return null;
          return applyEvent(
            ctx,
            { ...delay.event, at: delay.dueAt },
            { actor: 'xstate', idempotencyKey: `delay:${request.id}:${request.seq}`, ifAccepted: true },
            request.id,
          );
        },
      ),

      snapshot: restate.handlers.object.shared(
        checked(check, async (ctx: Shared): Promise<Answer<RunSnapshot>> => {
          const stored = await ctx.get<StoredRun>(STATE.run);
          return stored ? ok(toRunSnapshot(stored)) : refused(new UnknownRunError(ctx.key));
        }),
      ),

      /**
       * The audit trail after seq `after` (default 0), a page of it a call (HistoryRequest), its
       * answer built as bytes from the stored pages (history-pages.ts): Restate sends it as it is.
       */
      history: restate.handlers.object.shared(
        { output: answerSerde },
        checked(check, async (ctx: Shared, request: HistoryRequest | null): Promise<Uint8Array | HistoryAnswer> => {
          const stored = await ctx.get<StoredRun>(STATE.run);
          if (!stored) return refused(new UnknownRunError(ctx.key));
          const after = request?.after ?? 0;
          if (typeof request?.limit !== 'number') return ok(await readHistory(ctx, stored.seq, after, HISTORY_PAGE));
          const limit = Math.min(Math.max(Math.floor(request.limit), 1), HISTORY_MOST);
          return historyAnswer(ctx, stored.seq, after, limit, { least: HISTORY_PAGE, bytes: HISTORY_ANSWER_BYTES });
        }),
      ),

      explain: restate.handlers.object.shared(
        checked(check, async (ctx: Shared): Promise<Answer<Explanation>> => {
          const stored = await ctx.get<StoredRun>(STATE.run);
          if (!stored) return refused(new UnknownRunError(ctx.key));
          const at = await now(ctx);
          try {
            const explanation = await explainRun(
              {
                machines: steps.lifecycles,
                clock: { now: () => at, setTimeout, clearTimeout },
                hostedOn: restateHome,
                store: {
                  load: async () => stored,
                  history: async () => readHistory(ctx, stored.seq, 0, Infinity),
                },
              },
              ctx.key,
            );
            return ok(JSON.parse(JSON.stringify(explanation)) as Explanation);
          } catch (error) {
            return refused(error as Error);
          }
        }),
      ),

      /** The actors the run has running: what a restarted worker takes over. */
      actors: restate.handlers.object.shared(
        checked(check, async (ctx: Shared): Promise<LiveActors> => (await ctx.get<LiveActors>(STATE.actors)) ?? {}),
      ),
    },
  });
}

function setOrClear(ctx: Ctx, key: string, value: Readonly<Record<string, unknown>>): void {
  if (Object.keys(value).length) ctx.set(key, value);
  else ctx.clear(key);
}

interface StateNodeLike {
  readonly after: readonly unknown[];
  readonly states: Readonly<Record<string, StateNodeLike>>;
}

function hasAfterDelays(node: StateNodeLike): boolean {
  return node.after.length > 0 || Object.values(node.states).some(hasAfterDelays);
}
