import type { AnyStateNode } from 'xstate';

/**
 * What a machine declares about itself for `statewright check`, in the `meta` of a state (or of
 * the machine, for every state) or of a transition:
 *
 * - `waitsFor`: who the state waits for, when only an outside event moves it and it arms no
 *   deadline the check can see ("a person approves or denies the pending tool call").
 * - `deadline`: a durable timer the state arms by an action rather than an invoke, which the
 *   check cannot see ("lease-timer: the lease runs out at lease_until").
 * - `unbounded`: why a cycle through this state (or this transition) may go round without a
 *   budget ("a person may hold and release a run as often as they like").
 */
export interface CheckDeclarations {
  readonly waitsFor?: string;
  readonly deadline?: string;
  readonly unbounded?: string;
}

const declared = (meta: unknown, key: keyof CheckDeclarations): string | undefined => {
  const value = (meta as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
};

/** The declaration `key` of `node` or its nearest ancestor that makes it (the machine's root included). */
export function declaration(node: AnyStateNode, key: keyof CheckDeclarations): string | undefined {
  for (let at: AnyStateNode | undefined = node; at; at = at.parent) {
    const value = declared(at.meta, key);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** The declaration `key` of a transition (its `meta`). */
export const transitionDeclaration = (
  transition: { meta?: unknown },
  key: keyof CheckDeclarations,
): string | undefined => declared(transition.meta, key);
