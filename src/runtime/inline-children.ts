/**
 * Children spawned from inline logic (`spawn(childMachine)` in an `assign` or the context factory,
 * `spawnChild(childMachine)`): XState persists such a child with its logic object as `src`, which
 * JSON cannot carry and XState cannot revive, so a run restored with one fails at its next step
 * (`this.logic.getPersistedSnapshot is not a function`). The runtime refuses the step (or the start)
 * that spawns one, before anything is stored; a run stored with one already is set aside. A child
 * named in `setup({ actors })` and spawned by name (`spawn('child')`) is stored and restored.
 * (An inline `invoke` is fine: XState names its logic itself, `xstate.invoke.<n>.<state>`.)
 */
import type { AnyActorRef, AnyMachineSnapshot } from 'xstate';

/** The ids (`parent/child` for a grandchild) of the live children of `snapshot` whose logic was given inline. */
export function inlineChildren(snapshot: AnyMachineSnapshot): string[] {
  const found: string[] = [];
  liveInlineChildren(snapshot.children as Record<string, AnyActorRef | undefined>, '', found);
  return found;
}

/** A function of its own, not a closure made at every step: a run checks the children of each snapshot it commits. */
function liveInlineChildren(
  children: Record<string, AnyActorRef | undefined> | undefined,
  path: string,
  found: string[],
): void {
  for (const id in children) {
    const child = children[id];
    if (!child) continue;
    if (typeof child.src !== 'string') found.push(path + id);
    else
      liveInlineChildren(
        (child.getSnapshot() as { children?: Record<string, AnyActorRef> }).children,
        `${path}${id}/`,
        found,
      );
  }
}

/** The same, of a persisted snapshot as a store keeps it (a child's `src` not a name). */
export function storedInlineChildren(persisted: unknown): string[] {
  const found: string[] = [];
  const visit = (snapshot: unknown, path: string) => {
    const children = (snapshot as { children?: Record<string, { src?: unknown; snapshot?: unknown } | null> } | null)
      ?.children;
    if (!children || typeof children !== 'object') return;
    for (const id in children) {
      const child = children[id];
      if (!child) continue;
      if (typeof child.src !== 'string') found.push(path + id);
      else visit(child.snapshot, `${path}${id}/`);
    }
  };
  visit(persisted, '');
  return found;
}

/** What to do about it, said the same way by every refusal. */
export const INLINE_CHILD_FIX =
  "name its logic in setup({ actors: { name: logic } }) and spawn it by that name (spawn('name'), spawnChild('name'))";
