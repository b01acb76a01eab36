import type { InspectionEvent } from 'xstate';
import type { Channels } from './channels.js';

/**
 * What the steps of a hosted run hold back until they are durably committed: the side effects its
 * actors deferred (`RunHandle.afterCommit`), how the actors those steps stopped end their work
 * (`RunHandle.afterStop`), and the inspection events. Run once the commit lands, dropped if it
 * never does, so nothing happens that the store does not know.
 */
export class StepEffects {
  /** Side effects that actors asked to run once the current step is durable. */
  #deferred: Array<() => void> = [];
  /** How actors stopped by the steps not yet committed end their work, in the order stopped. */
  #stops: Array<() => void> = [];
  #inspections: InspectionEvent[] = [];
  /** True while an event is applied to the actor: an actor stopped then is stopped by that step. */
  #applying = false;
  /** Where the step being applied began: what `unseeStep` and `stepStops` take back. */
  #stepShown = 0;
  #stepStopped = 0;
  /** While actors are stopped: whether they let go of what they run rather than end it (`RunHandle.handingOver`). */
  #handingOver = false;

  constructor(
    private readonly runId: string,
    private readonly channels: Channels,
  ) {}

  get handingOver(): boolean {
    return this.#handingOver;
  }

  /** Nothing waits for a commit. */
  get none(): boolean {
    return this.#deferred.length === 0 && this.#stops.length === 0;
  }

  afterCommit(effect: () => void): void {
    this.#deferred.push(effect);
  }

  /** Held until the step that stopped the actor is durable; outside a step, run at once. */
  afterStop(effect: () => void): void {
    if (this.#applying) this.#stops.push(effect);
    else this.#end(effect);
  }

  inspected(event: InspectionEvent): void {
    this.#inspections.push(event);
  }

  /** An event is being applied to the actor, until `endStep`. */
  beginStep(): void {
    this.#stepShown = this.#inspections.length;
    this.#stepStopped = this.#stops.length;
    this.#applying = true;
  }

  endStep(): void {
    this.#applying = false;
  }

  /** The step just applied took no transition: the inspector sees only what is committed. */
  unseeStep(): void {
    this.#inspections.length = this.#stepShown;
  }

  /** The step just applied is undone: what it stopped, taken out of the steps to commit. */
  stepStops(): Array<() => void> {
    return this.#stops.splice(this.#stepStopped);
  }

  /** The steps will never commit: their effects are dropped; returns how the actors they stopped end their work. */
  discard(): Array<() => void> {
    this.discardDeferred();
    return this.#takeStops();
  }

  /** The actors that deferred effects are replaced (restored from the store): their effects and inspections are dropped. */
  discardDeferred(): void {
    this.#deferred = [];
    this.#inspections = [];
  }

  /** Runs `body` with `RunHandle.handingOver` as given: the actors it stops let go of what they run, or end it. */
  handingOverWhile(handingOver: boolean, body: () => void): void {
    this.#handingOver = handingOver;
    try {
      body();
    } finally {
      this.#handingOver = false;
    }
  }

  /** Ends what stopped actors ran (`afterStop` effects). */
  endAll(stops: ReadonlyArray<() => void>): void {
    for (const effect of stops) this.#end(effect);
  }

  /** The steps are durable: what they stopped ends before what they started begins, then the inspector sees them. */
  run(): void {
    this.endAll(this.#takeStops());
    const effects = this.#deferred;
    this.#deferred = [];
    for (const effect of effects) this.#run(effect, 'a deferred side effect');
    const inspect = this.channels.inspect;
    if (inspect) {
      const inspections = this.#inspections;
      this.#inspections = [];
      try {
        for (const event of inspections) inspect(event);
      } catch (error) {
        // The step is committed: a failing inspector must not make it look refused.
        this.channels.log(this.runId, 'error', `the inspector threw: ${(error as Error).message}`);
      }
    }
  }

  #takeStops(): Array<() => void> {
    const stops = this.#stops;
    this.#stops = [];
    return stops;
  }

  #end(effect: () => void): void {
    this.#run(effect, 'ending what a stopped actor ran');
  }

  #run(effect: () => void, what: string): void {
    try {
      effect();
    } catch (error) {
      this.channels.log(this.runId, 'error', `${what} failed: ${(error as Error).message}`);
    }
  }
}
