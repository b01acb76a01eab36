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

export type Intent = ArmIntent | StartIntent | StopIntent | DeliverIntent;

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
    if (intent.kind === 'arm') continue;
    if (intent.kind === 'start') running[intent.id] = intent;
    if (intent.kind === 'stop') {
      const start = running[intent.id];
      delete running[intent.id];
      out.push(start ? { ...intent, intentId: start.intentId } : intent);
    } else out.push(intent);
  }
  return out;
}
