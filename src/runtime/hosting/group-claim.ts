import type { Claim, OwnerInfo, StoreLeases } from '../../stores/store.js';

/** How long a claim out holds back the claims asked for after it (see `GroupClaimer`). */
const SLOW_CLAIM_MS = 100;

interface Waiting {
  runId: string;
  resolve: (claim: Claim | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * Group claims: the claims of sleeping runs that events wake while a claim is out go to the store
 * together, as one `claimRuns` (one statement), as group commit does for commits. A host that gets
 * events for 100 sleeping runs at once then pays for a few statements, not 100. A claim asked for
 * while none is out is sent at once, alone (`claimRun`), so a wake one at a time costs what it did.
 *
 * A claim out for longer than `SLOW_CLAIM_MS` holds nothing back any more: a claim that waits on a
 * run's row lock (say, a transaction an operator left open) stalls that claim's runs only.
 *
 * Only claims with the same `takeFrom` (the holders the caller found dead) go together; a store
 * without `claimRuns` gets every claim alone.
 */
export class GroupClaimer {
  /** Claims not sent yet, by their `takeFrom` (joined). */
  #waiting = new Map<string, { takeFrom: readonly string[]; claims: Waiting[] }>();
  /** Claims out, not yet slow: while there is one, the claims asked for wait for it and then go together. */
  #holdingBack = 0;
  #scheduled = false;

  constructor(
    private readonly leases: StoreLeases,
    private readonly owner: OwnerInfo,
    private readonly ttlMs: number,
  ) {}

  /** `claimRun` of `runId` for this host: its claim, undefined for an unknown run; rejects as `claimRun` does (`RunHeldError`). */
  claim(runId: string, takeFrom: readonly string[]): Promise<Claim | undefined> {
    if (!this.leases.claimRuns)
      return this.leases.claimRun(runId, this.owner, { now: Date.now(), ttlMs: this.ttlMs, takeFrom });
    return new Promise((resolve, reject) => {
      const key = takeFrom.join('\n');
      let group = this.#waiting.get(key);
      if (!group) this.#waiting.set(key, (group = { takeFrom, claims: [] }));
      group.claims.push({ runId, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#holdingBack > 0) return;
    this.#scheduled = true;
    // A microtask: the claims asked for in this turn of the event loop go together.
    queueMicrotask(() => {
      this.#scheduled = false;
      const groups = [...this.#waiting.values()];
      this.#waiting.clear();
      for (const { takeFrom, claims } of groups) void this.#send(takeFrom, claims);
    });
  }

  async #send(takeFrom: readonly string[], claims: Waiting[]): Promise<void> {
    this.#holdingBack++;
    let holdsBack = true;
    const stopHoldingBack = () => {
      if (!holdsBack) return;
      holdsBack = false;
      this.#holdingBack--;
      if (this.#waiting.size) this.#schedule();
    };
    // A real timer, not the runtime's clock: it bounds how long this host's other wakes wait.
    const slow = setTimeout(stopHoldingBack, SLOW_CLAIM_MS);
    slow.unref();
    const options = { now: Date.now(), ttlMs: this.ttlMs, takeFrom };
    try {
      if (claims.length === 1) {
        const [only] = claims as [Waiting];
        await this.leases.claimRun(only.runId, this.owner, options).then(only.resolve, only.reject);
        return;
      }
      // The same run asked for twice in one batch (two events whose loads raced) is claimed once.
      const runIds = [...new Set(claims.map((c) => c.runId))];
      const outcomes = new Map<string, Claim | Error | undefined>();
      try {
        const answers = await this.leases.claimRuns!(runIds, this.owner, options);
        if (answers.length !== runIds.length) {
          throw new Error(
            `The store's claimRuns answered ${answers.length} runs for the ${runIds.length} asked (${runIds.join(', ')}): it must answer each run, in the order asked (StoreLeases.claimRuns).`,
          );
        }
        runIds.forEach((runId, i) => outcomes.set(runId, answers[i]));
      } catch (error) {
        for (const c of claims) c.reject(error);
        return;
      }
      for (const c of claims) {
        const outcome = outcomes.get(c.runId);
        if (outcome instanceof Error) c.reject(outcome);
        else c.resolve(outcome);
      }
    } finally {
      clearTimeout(slow);
      stopHoldingBack();
    }
  }
}
