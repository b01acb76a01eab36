/**
 * The worker's side of a run's actors: it performs the intents the run objects recorded (start,
 * stop, deliver) with the real actor factories, and reports what the actors send through the
 * ingress, in order per run, each report with an idempotency key (the actor's own, such as the
 * agent's pid, start time and log offset, or one made for it), so a report repeated after a lost
 * answer is applied once. A start is performed once per intent id; a stopped intent is never
 * started again. After a crash, `adopt` starts the live actors every run object lists: the agent
 * actor then adopts its recorded process (same pid and start time) instead of spawning another.
 */
import { randomUUID } from 'node:crypto';
import * as restate from '@restatedev/restate-sdk';
import { createActor, type AnyActor, type EventObject } from 'xstate';
import { systemClock } from '../actor-contract/clock.js';
import type { LogLevel, MachineActors, RunHandle, SendOptions } from '../actor-contract/run-handle.js';
import type { AdminClient } from './admin-client.js';
import type { IngressClient } from './ingress-client.js';
import type { LiveActors, WorkerIntent } from './intents.js';
import { ACTOR_HOST, machineOfObject, runObjectName, STATE } from './object-names.js';
import type { Answer } from './answer.js';

export interface ActorLog {
  readonly runId: string;
  readonly level: LogLevel;
  readonly message: string;
  readonly data?: Record<string, unknown>;
}

interface Running {
  readonly intentId: string;
  readonly actor: AnyActor;
  readonly handle: { handingOver: boolean };
}

export class ActorHost {
  /** By run, then by child id. */
  readonly #running = new Map<string, Map<string, Running>>();
  /** Intent ids stopped (or performed and ended) in this process: never started again. */
  readonly #ended = new Set<string>();
  /** Each run's reports, one after the other. */
  readonly #reports = new Map<string, Promise<void>>();
  #closed = false;

  constructor(
    readonly actors: MachineActors,
    readonly ingress: IngressClient,
    readonly onLog: (entry: ActorLog) => void = () => {},
  ) {}

  /** How many actors run here now. */
  get size(): number {
    let n = 0;
    for (const run of this.#running.values()) n += run.size;
    return n;
  }

  perform(runId: string, machine: string, intents: readonly WorkerIntent[]): void {
    if (this.#closed) throw new restate.RetryableError('this worker is closing: another worker performs the intents');
    for (const intent of intents) {
      const run = this.#running.get(runId);
      if (intent.kind === 'start') this.#start(runId, machine, intent.id, intent.src, intent.input, intent.intentId);
      else if (intent.kind === 'stop') {
        if (intent.intentId) this.#ended.add(intent.intentId);
        const running = run?.get(intent.id);
        if (running && (!intent.intentId || running.intentId === intent.intentId)) {
          run!.delete(intent.id);
          running.actor.stop();
        }
      } else run?.get(intent.id)?.actor.send(intent.event as EventObject);
    }
  }

  /** Starts the live actors every run object of `machines` lists (after this worker, or another, died). */
  async adopt(admin: AdminClient, machines: readonly string[]): Promise<number> {
    const services = machines.map((machine) => `'${runObjectName(machine).replaceAll("'", "''")}'`).join(', ');
    if (!services) return 0;
    const rows = await admin.query<{ service_name: string; service_key: string; value_utf8: string }>(
      `SELECT service_name, service_key, value_utf8 FROM state WHERE key = '${STATE.actors}' AND service_name IN (${services})`,
    );
    let started = 0;
    for (const row of rows) {
      const machine = machineOfObject(row.service_name);
      if (!machine) continue;
      const live = JSON.parse(row.value_utf8) as LiveActors;
      for (const start of Object.values(live)) {
        if (this.#running.get(row.service_key)?.get(start.id)?.intentId === start.intentId) continue;
        if (this.#start(row.service_key, machine, start.id, start.src, start.input, start.intentId)) started++;
      }
    }
    return started;
  }

  /** Stops every actor. With `handOver`, they let go of what they run (an agent keeps running), for the next worker to adopt. */
  async close(options: { handOver?: boolean } = {}): Promise<void> {
    this.#closed = true;
    for (const run of this.#running.values())
      for (const running of run.values()) {
        running.handle.handingOver = options.handOver === true;
        running.actor.stop();
      }
    this.#running.clear();
    await Promise.allSettled([...this.#reports.values()]);
  }

  #start(runId: string, machine: string, id: string, src: string, input: unknown, intentId: string): boolean {
    if (this.#ended.has(intentId)) return false;
    const run = this.#running.get(runId) ?? new Map<string, Running>();
    this.#running.set(runId, run);
    const existing = run.get(id);
    if (existing?.intentId === intentId) return false;
    existing?.actor.stop();
    const factory = this.actors[machine]?.[src];
    if (!factory) {
      this.onLog({
        runId,
        level: 'warn',
        message: `no '${src}' actor is given for '${machine}' in this worker: nothing performs it`,
      });
      return false;
    }
    const state = { handingOver: false };
    const handle: RunHandle = {
      runId,
      machine,
      clock: systemClock,
      send: (event, options) => this.#report(runId, machine, event, options),
      // The step that started or stopped the actor is committed already.
      afterCommit: (effect) => queueMicrotask(effect),
      afterStop: (effect) => queueMicrotask(effect),
      log: (level, message, data) => this.onLog({ runId, level, message, ...(data && { data }) }),
      get handingOver() {
        return state.handingOver;
      },
    };
    const actor = createActor(factory(handle), { id, input });
    // XState's own events for an invoked actor (`onDone`, `onError`), which beside a store the runtime
    // takes into the run's queue (xstate-events.ts), reported the same way: once, and dropped by a
    // state that no longer takes them.
    const own = { actor: id, ifAccepted: true };
    actor.subscribe({
      complete: () => {
        const snapshot = actor.getSnapshot() as { status: string; output?: unknown };
        if (snapshot.status !== 'done' || state.handingOver) return;
        this.#ended.add(intentId);
        this.#report(
          runId,
          machine,
          { type: `xstate.done.actor.${id}`, output: snapshot.output ?? null } as { type: string },
          { ...own, idempotencyKey: `${intentId}:done` },
        );
      },
      error: (error) => {
        this.#ended.add(intentId);
        const { name, message } = error instanceof Error ? error : new Error(String(error));
        this.#report(
          runId,
          machine,
          { type: `xstate.error.actor.${id}`, error: { name, message } } as { type: string },
          { ...own, idempotencyKey: `${intentId}:error` },
        );
      },
    });
    run.set(id, { intentId, actor, handle: state });
    actor.start();
    return true;
  }

  #report(runId: string, machine: string, event: { type: string }, options: SendOptions = {}): void {
    const body = {
      event: { ...event, at: (event as { at?: unknown }).at ?? Date.now() },
      options,
    };
    const key = options.idempotencyKey ?? randomUUID();
    const previous = this.#reports.get(runId) ?? Promise.resolve();
    const next = previous.then(async () => {
      try {
        const answer = await this.ingress.call<Answer<unknown>>(runObjectName(machine), runId, 'send', body, key);
        if ('refused' in answer)
          this.onLog({ runId, level: 'warn', message: `'${event.type}' refused: ${answer.refused.message}` });
      } catch (error) {
        this.onLog({ runId, level: 'error', message: `'${event.type}' not reported: ${(error as Error).message}` });
      }
    });
    this.#reports.set(runId, next);
  }
}

/**
 * The worker's actor host as a virtual object keyed by run id: a run's intents are performed in the
 * order its steps made them. Only the run objects call it: it is private to Restate (no ingress call
 * reaches it, so none can make the worker spawn a process).
 */
export function actorHostObject(host: ActorHost) {
  return restate.object({
    name: ACTOR_HOST,
    description: "statewright worker: performs each run's actor intents (agents, checks)",
    options: { ingressPrivate: true },
    handlers: {
      perform: async (
        ctx: restate.ObjectContext,
        request: { machine: string; intents: WorkerIntent[] },
      ): Promise<void> => {
        host.perform(ctx.key, request.machine, request.intents);
      },
    },
  });
}
