/** The options of `statewright serve` that name a host and set its leases and hibernation. */
import { InvalidArgumentError, Option } from 'commander';
import { hostIdProblem, MAX_HOST_ID_LENGTH } from '../serve/host-id.js';
import { DEFAULT_HIBERNATE_AFTER_MS, DEFAULT_LEASE_TTL_MS, MIN_LEASE_TTL_MS } from '../serve/serve.js';
import { wholeNumber } from './whole-number.js';

export const hostIdOption = () =>
  new Option(
    '--host-id <name>',
    `this host's name on the leases it holds, in status and explain (default hostname:pid:random; visible characters, no whitespace, at most ${MAX_HOST_ID_LENGTH})`,
  ).argParser((value: string) => {
    const problem = hostIdProblem(value);
    if (problem !== undefined)
      throw new InvalidArgumentError(
        `Cannot name a host so: ${problem}. Give one word of visible characters, e.g. --host-id worker-1.`,
      );
    return value;
  });

export const leaseTtlOption = () =>
  new Option(
    '--lease-ttl <ms>',
    "how long this host's hold on a run lasts without a heartbeat: another host takes its runs over this long after it stops renewing (a whole number of ms, at least 500)",
  )
    .argParser(wholeNumber(MIN_LEASE_TTL_MS))
    .default(DEFAULT_LEASE_TTL_MS);

export const hibernateAfterOption = () =>
  new Option(
    '--hibernate-after <ms>',
    'drop a run from memory after this long idle, until its next event or deadline (ms on the runtime clock; 0: at once; off: keep every run in memory)',
  )
    .argParser(hibernateAfter)
    .default(DEFAULT_HIBERNATE_AFTER_MS);

/** `off`, or a whole number of ms. */
function hibernateAfter(value: string): number | false {
  if (value === 'off') return false;
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('Give a whole number of ms (0: at once), or off.');
  return Number(value);
}
