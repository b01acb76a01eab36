/**
 * One lifecycle as a Restate virtual object keyed by run id: the runtime's durable send, with
 * Restate serializing each run's calls and journaling each step. A send reads the stored run, takes
 * the step (run-steps.ts) and refuses before writing anything, or writes the new row, its audit
 * entry (one state key per entry, so no call carries the whole history), the idempotency key's
 * result, and the run's live actors, then hands the step's intents on: deadlines as delayed calls to
 * `fire`, actors to the worker (`statewright-actors`). Reads (`snapshot`, `history`, `explain`,
 * `actors`) are shared handlers: they do not queue behind sends. State is lazy: a call fetches only
 * the keys it reads; `history` and `explain`, which read every entry, take the state with the call.
 */
import * as restate from '@restatedev/restate-sdk';
import type { Clock } from '../actor-contract/clock.js';
import type { SendOptions } from '../actor-contract/run-handle.js';
import { explainRun } from '../explain/index.js';
import type { Explanation } from '../explain/index.js';
import { MalformedEventError, RunExistsError, UnknownRunError } from '../runtime/errors.js';
import type { StartInput } from '../runtime/lifecycle-wiring.js';
import { toRunSnapshot, type RunSnapshot } from '../runtime/run-snapshot.js';
import type { EventRecord, StoredRun } from '../stores/store.js';
import { ok, refused, type Answer } from './answer.js';
import { checked, type CallerCheck } from './caller-check.js';
import { afterDelays, afterIntents, workerIntents, type LiveActors, type PendingDelays } from './intents.js';
import { ACTOR_HOST, HISTORY_PAGE, restateHome, runObjectName, STATE } from './object-names.js';
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
  async function write(ctx: Ctx, step: TakenStep, key: string | undefined, fired?: string): Promise<RunSnapshot> {
    const { run, entry, intents } = step;
    const view = toRunSnapshot(run);
    ctx.set(STATE.run, run);
    if (entry) ctx.set(STATE.entry(entry.seq), entry);
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
    const stored = await ctx.get<StoredRun>(STATE.run);
    if (!stored) return refused(new UnknownRunError(ctx.key));
    const key = options.idempotencyKey;
    if (key !== undefined) {
      const earlier = await ctx.get<RunSnapshot>(STATE.key(key));
      if (earlier) return ok(earlier);
    }
    const outcome = steps.step(stored, event, options);
    if ('refused' in outcome || 'dropped' in outcome) {
      // A delayed event the state no longer takes has fired all the same: it is pending no more.
      if (fired !== undefined) {
        const { [fired]: _gone, ...rest } = (await ctx.get<PendingDelays>(STATE.delays)) ?? {};
        setOrClear(ctx, STATE.delays, rest);
      }
      return 'refused' in outcome ? refused(outcome.refused) : ok(toRunSnapshot(stored));
    }
    return ok(await write(ctx, outcome, key, fired));
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
          return ok(await write(ctx, outcome, undefined));
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
       * The audit trail after seq `after` (default 0), at most `HISTORY_PAGE` entries a call. Its
       * state comes with the call (not lazy): fetched one key at a time, 1,000 entries took 100x a
       * snapshot's read (bench/restate.bench.ts). Restate sends what fits; the SDK fetches the rest.
       */
      history: restate.handlers.object.shared(
        { enableLazyState: false },
        checked(check, async (ctx: Shared, request: { after?: number } | null): Promise<Answer<EventRecord[]>> => {
          const stored = await ctx.get<StoredRun>(STATE.run);
          if (!stored) return refused(new UnknownRunError(ctx.key));
          return ok(await readHistory(ctx, stored.seq, request?.after ?? 0));
        }),
      ),

      // Reads the whole history too: its state comes with the call, as history's does.
      explain: restate.handlers.object.shared(
        { enableLazyState: false },
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

async function readHistory(ctx: Shared, seq: number, after: number, limit = HISTORY_PAGE): Promise<EventRecord[]> {
  const last = Math.min(seq, after + limit);
  const reads: Array<restate.RestatePromise<EventRecord | null>> = [];
  for (let n = Math.max(after, 0) + 1; n <= last; n++)
    reads.push(ctx.get<EventRecord>(STATE.entry(n)) as restate.RestatePromise<EventRecord | null>);
  // Awaited together through the SDK's own combinator: a plain Promise.all of lazy state reads is
  // refused by restate-sdk ("awaitNext already pending") and the call retried, costing a round.
  const entries = await restate.RestatePromise.all(reads);
  return entries.filter((entry): entry is EventRecord => entry !== null);
}
