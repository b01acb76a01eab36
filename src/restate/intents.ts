/**
 * What a run's actors are asked to do, as its run object records it. On Restate the object only
 * decides: each actor a step invokes, stops or sends to becomes an intent, kept with the step and
 * performed after it by the worker (agents, checks), or by Restate itself (a deadline is a delayed
 * call to the object). The live actors of a run (`LiveActors`) are the ones started and not yet
 * stopped: what a restarted worker takes over.
 */

/** A durable timer the step armed: its event is due at `deadline` (the `deadline` actor's input). */
export interface ArmIntent {
  readonly kind: 'arm';
  readonly id: string;
  readonly deadline: number;
  readonly event: { readonly type: string; readonly [key: string]: unknown };
}

/** An actor the step invoked or spawned: the worker builds it from its factory (`src`) with `input`. */
export interface StartIntent {
  readonly kind: 'start';
  /** The child's id in the run's machine. */
  readonly id: string;
  readonly src: string;
  readonly input: unknown;
  /** `<run>:<seq>:<id>`: this start, told apart from a later start of an actor with the same id. */
  readonly intentId: string;
}

/** An actor the step stopped (its state was left): the worker ends what it runs. */
export interface StopIntent {
  readonly kind: 'stop';
  readonly id: string;
  /** The start it ends, when the object knew it (see `withStarts`). */
  readonly intentId?: string;
}

/** An event the machine sent to one of its actors (`sendTo`, such as `agent.stop`). */
export interface DeliverIntent {
  readonly kind: 'deliver';
  readonly id: string;
  readonly event: { readonly type: string; readonly [key: string]: unknown };
}

/**
 * A delayed event XState scheduled in the step (an `after` delay, a delayed `raise`), which it keeps
 * in memory only: the run object makes it a delayed call, due `delay` ms after the step's event.
 */
export interface DelayIntent {
  readonly kind: 'delay';
  /** XState's id for it: an `after` delay's event type. */
  readonly id: string;
  readonly event: { readonly type: string; readonly [key: string]: unknown };
  readonly delay: number;
}

export type Intent = ArmIntent | StartIntent | StopIntent | DeliverIntent | DelayIntent;

/** A delayed event the run waits for, by its id: the step (seq) that scheduled it, and when it is due. */
export type PendingDelays = Readonly<
  Record<string, { readonly event: DelayIntent['event']; readonly dueAt: number; readonly seq: number }>
>;

/**
 * The delayed events still pending after a step (`seq`, its event at `at`): an `after` delay lasts
 * while one of its states is active (`activeAfters`), and is replaced when the step schedules it
 * again; `fired` is the one the step itself was.
 */
export function afterDelays(
  pending: PendingDelays,
  intents: readonly Intent[],
  step: {
    readonly seq: number;
    readonly at: number;
    readonly activeAfters: readonly string[];
    readonly fired?: string;
  },
): PendingDelays {
  const next: Record<string, PendingDelays[string]> = {};
  for (const [id, delay] of Object.entries(pending)) {
    if (id === step.fired) continue;
    if (delay.event.type.startsWith('xstate.after.') && !step.activeAfters.includes(delay.event.type)) continue;
    next[id] = delay;
  }
  for (const intent of intents)
    if (intent.kind === 'delay')
      next[intent.id] = { event: intent.event, dueAt: step.at + intent.delay, seq: step.seq };
  return next;
}

/** The actors a run has running, by child id: what the worker must be running for it. */
export type LiveActors = Readonly<Record<string, StartIntent>>;

/** The live actors after a step's intents. */
export function afterIntents(live: LiveActors, intents: readonly Intent[]): LiveActors {
  const next: Record<string, StartIntent> = { ...live };
  for (const intent of intents) {
    if (intent.kind === 'start') next[intent.id] = intent;
    else if (intent.kind === 'stop') delete next[intent.id];
  }
  return next;
}

export type WorkerIntent = StartIntent | StopIntent | DeliverIntent;

/**
 * The intents the worker performs (all but deadlines, which Restate keeps), each stop naming the
 * start it ends: a worker that took over a run's actors from a stale list knows not to start one
 * that has been stopped since.
 */
export function workerIntents(live: LiveActors, intents: readonly Intent[]): WorkerIntent[] {
  const running: Record<string, StartIntent> = { ...live };
  const out: WorkerIntent[] = [];
  for (const intent of intents) {
    if (intent.kind === 'arm' || intent.kind === 'delay') continue;
    if (intent.kind === 'start') running[intent.id] = intent;
    if (intent.kind === 'stop') {
      const start = running[intent.id];
      delete running[intent.id];
      out.push(start ? { ...intent, intentId: start.intentId } : intent);
    } else out.push(intent);
  }
  return out;
}
