import { fromCallback, type AnyStateMachine, type EventObject } from 'xstate';
import type { Lifecycles } from '../../machines/lifecycle.js';
import type { MachineActors } from '../../src/actor-contract/run-handle.js';

/** One side effect an actor made (or let go of), by which host. */
export interface Effect {
  readonly host: string;
  readonly runId: string;
  /** The actor's name in its machine and the input it was started with: what it would spawn, check or commit. */
  readonly key: string;
  readonly kind: 'start' | 'stop';
}

/** The actors whose start is a side effect: every named actor but the runtime's durable timer. */
export function effectActors(machine: AnyStateMachine): string[] {
  return Object.keys(machine.implementations.actors ?? {}).filter((name) => name !== 'deadline');
}

export const effectKey = (actor: string, input: unknown) => `${actor} ${JSON.stringify(input)}`;

/**
 * Stand-ins for every actor of every lifecycle (but `deadline`) that do what the real ones do with
 * the outside world, reduced to a ledger entry: the real agent, check runner, rig setup and
 * checkpoint start their work in `run.afterCommit` and not at all once stopped, and end it in
 * `run.afterStop`, once the step that stopped them is durable; and so do these.
 * Each host gets its own set (`actorsFor(host)`); a host that died (`kill`) does nothing more, and
 * anything it still tries is kept in `afterDeath`, which must stay empty.
 */
export class EffectLedger {
  readonly effects: Effect[] = [];
  readonly afterDeath: Effect[] = [];
  readonly #dead = new Set<string>();

  /** `sink` hears of every effect as it is made (a child process writes them to a file for its parent). */
  constructor(
    private readonly machines: Lifecycles,
    private readonly sink?: (effect: Effect) => void,
  ) {}

  actorsFor(host: string): MachineActors {
    const byMachine: Record<string, Record<string, (run: any) => any>> = {};
    for (const [name, lifecycle] of Object.entries(this.machines)) {
      const actors = effectActors(lifecycle.machine);
      if (!actors.length) continue;
      byMachine[name] = Object.fromEntries(
        actors.map((actor) => [
          actor,
          (run: {
            runId: string;
            afterCommit(effect: () => void): void;
            afterStop(effect: () => void): void;
            readonly handingOver?: boolean;
          }) =>
            fromCallback<EventObject, unknown>(({ input }) => {
              let stopped = false;
              let started = false;
              const key = effectKey(actor, input);
              run.afterCommit(() => {
                if (stopped) return;
                started = true;
                this.#record({ host, runId: run.runId, key, kind: 'start' });
              });
              return () => {
                stopped = true;
                // Ended once the stopping step is durable, as the real ones do; handed over (the
                // step undone, or the host handing its runs on), it is let go, not ended.
                if (started && !run.handingOver) {
                  run.afterStop(() => {
                    if (!run.handingOver) this.#record({ host, runId: run.runId, key, kind: 'stop' });
                  });
                }
              };
            }),
        ]),
      );
    }
    return byMachine;
  }

  /** The host is dead: from now on it can do nothing. */
  kill(host: string): void {
    this.#dead.add(host);
  }

  /** The keys one host started for one run (in order), and those still running (started, not stopped). */
  of(host: string, runId: string): { started: string[]; running: string[] } {
    const started: string[] = [];
    const running: string[] = [];
    for (const e of this.effects) {
      if (e.host !== host || e.runId !== runId) continue;
      if (e.kind === 'start') {
        started.push(e.key);
        running.push(e.key);
      } else running.splice(running.indexOf(e.key), 1);
    }
    return { started, running };
  }

  /** Effects a host made elsewhere (in a child process), as if made here. */
  add(effects: readonly Effect[]): void {
    this.effects.push(...effects);
  }

  #record(effect: Effect): void {
    (this.#dead.has(effect.host) ? this.afterDeath : this.effects).push(effect);
    this.sink?.(effect);
  }
}
