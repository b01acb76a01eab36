/**
 * A move XState makes by itself as one phrase, apart from own-moves.ts (which reads XState's
 * insides): an explanation is printed without loading XState (`statewright explain` through a serve).
 */
/** One move XState makes for the run by itself: its event as XState names it, in words, and the states it leads to. */
export interface OwnMove {
  /** XState's event type, as the store keeps it (`xstate.after.20000.expense.managerApproval`). */
  readonly event: string;
  /** What a person reads: "after 20 s", "when both regions of checks finish". */
  readonly label: string;
  /** The states it leads to (dotted for nested ones); empty when it stays where it is, running only actions. */
  readonly to: string[];
}

/** A move as one phrase: "after 20 s -> timedOut", "when payout is done -> paid, failed", "when fetchUser reports progress (stays)". */
export function moveWords(move: Pick<OwnMove, 'label' | 'to'>): string {
  return move.to.length > 0 ? `${move.label} -> ${move.to.join(', ')}` : `${move.label} (stays)`;
}
