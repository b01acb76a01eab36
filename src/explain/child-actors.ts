/**
 * A run's live child actors (its timers aside), told apart as a person needs them: the ones it
 * waits on (what its active states invoke, and spawned workers such as an agent process, whose
 * reports move it) and the child machines it spawned, which run beside it and are driven through
 * it (`sendTo`) rather than awaited. Each by the name the machine's author knows (`actorWords`).
 */
import type { AnyMachineSnapshot } from 'xstate';
import { actorWords } from '../graph/event-words.js';
import { invokedActorIds } from '../graph/own-moves.js';
import { workingActors } from './armed-deadlines.js';

export interface ChildActors {
  /** The actors the run waits on to report. */
  readonly awaited: string[];
  /** The child machines it spawned and does not wait on. */
  readonly spawned: string[];
}

export function childActors(persisted: unknown, snapshot: AnyMachineSnapshot): ChildActors {
  const invoked = invokedActorIds(snapshot);
  const children =
    (persisted as { children?: Record<string, { snapshot?: { value?: unknown } }> } | null)?.children ?? {};
  const awaited: string[] = [];
  const spawned: string[] = [];
  for (const id of workingActors(persisted)) {
    // A spawned machine sits in its own states until an event comes; other spawned logic works and reports.
    const machineChild = children[id]?.snapshot?.value !== undefined;
    (invoked.has(id) || !machineChild ? awaited : spawned).push(actorWords(snapshot.machine, id));
  }
  return { awaited, spawned };
}
