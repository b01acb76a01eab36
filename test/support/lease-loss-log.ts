/**
 * What a `statewright serve` host said on stderr about the runs it lost (see `serve`'s onLog and
 * onError): each run it stopped hosting ("<run>: warn: no longer hosted here, its actors let go of their work for the new holder"),
 * and each event it had applied in memory whose commit was refused because its lease was gone
 * ("<run>: <event> refused: Commit refused: ... not held by ..."), a late write refused.
 */
export interface LeaseLosses {
  /** Runs it stopped hosting, each counted once. */
  readonly lostRuns: number;
  /** Events it could not commit: refused by the store's fence, or by itself once it knew the run was gone. */
  readonly refusedEvents: number;
}

export function leaseLosses(stderr: string): LeaseLosses {
  const lost = new Set([...stderr.matchAll(/^(\S+): warn: no longer hosted here/gm)].map((m) => m[1]));
  const refused = [...stderr.matchAll(/^\S+: \S+ refused: Commit refused: .*not held by '/gm)].length;
  return { lostRuns: lost.size, refusedEvents: refused };
}
