/**
 * Which runs must go through a running serve: runs of a lifecycle whose actors or timers must run
 * are started and moved only there, since committing their events from a process that exits at
 * once would leave them with nothing to act on them.
 */
import type { Lifecycles } from '../../machines/lifecycle.js';
import { StatewrightError } from '../errors.js';
import { hostNeeds } from '../graph/host-needs.js';

/** Why runs of `machine` need a host (hostNeeds: its actors, inline invokes and spawns, `after` delays), or undefined. */
export function needsHost(machine: string, registry: Lifecycles): string | undefined {
  const lifecycle = Object.hasOwn(registry, machine) ? registry[machine] : undefined;
  return lifecycle && hostNeeds(lifecycle.machine);
}

/** Start or send for such a run with no server to host it. */
export class NoServerError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'NoServerError';
  constructor(
    readonly machine: string,
    store: string | undefined,
    why: string,
  ) {
    super(
      `No statewright serve is running for this store, and ${machine} runs need one: ${why}. ` +
        `Start one with \`npx statewright serve${store ? ` --store ${store}` : ''}\` and run this again (or give --server <url>).`,
    );
  }
}
