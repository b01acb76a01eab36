/**
 * Where a hosted run is in its life here, as XState's `Actor` keeps its `ProcessingStatus`. Only
 * an active or stale run applies events; a stopped or handed-over one still takes what its
 * stopped actors report; an unloaded or lost one hears nothing more, and stays so.
 */
export type RunPhase =
  | { readonly is: 'active' }
  /** The stored row may be ahead of the last commit here (a commit of unknown outcome) and could not be read yet: it is read before the next batch. */
  | { readonly is: 'stale' }
  /** `stop()`: its actors ended what they ran. */
  | { readonly is: 'stopped' }
  /** `stop(true)`: its actors let go of what they run, for the next host to adopt. */
  | { readonly is: 'handedOver' }
  /** `unload()`: its stopped actors' reports are no longer taken. */
  | { readonly is: 'unloaded' }
  /** `lose()`: another host holds the run; every caller is refused with `error`. */
  | { readonly is: 'lost'; readonly error: Error };

export const ACTIVE: RunPhase = { is: 'active' };
export const STALE: RunPhase = { is: 'stale' };
export const STOPPED: RunPhase = { is: 'stopped' };
export const HANDED_OVER: RunPhase = { is: 'handedOver' };
export const UNLOADED: RunPhase = { is: 'unloaded' };

/** Whether a run in `phase` still applies events here. */
export function applies(phase: RunPhase): boolean {
  return phase === ACTIVE || phase === STALE;
}

/** Whether a run in `phase` has stopped for good here: what its stopped actors still say is not taken. */
export function endedForGood(phase: RunPhase): boolean {
  return phase === UNLOADED || phase.is === 'lost';
}
