/**
 * The seed's pure check of a `CodonTransitioned` (seed-systems.md §1.1, steps 1 and 2), for callers
 * that hold a record rather than a running machine. The allowed pairs are read from the machine's
 * `CodonTransitioned` edges, and the metadata rules are the machine's guard schemas.
 */
import { InvalidTransitionError } from '../../src/graph/invalid-transition-error.js';
import { metadataErrorFromIssues } from '../../src/graph/metadata-guard.js';
import { transitionTable } from '../../src/graph/transition-table.js';
import { codonMachine } from './machine.js';
import { codonMetadataSchemas } from './schemas.js';
import { CODON_STATUSES, type CodonStatus } from './types.js';

function derivedTransitions(): Readonly<Record<CodonStatus, readonly CodonStatus[]>> {
  const table = Object.fromEntries(CODON_STATUSES.map((status) => [status, [] as CodonStatus[]])) as Record<CodonStatus, CodonStatus[]>;
  for (const row of transitionTable(codonMachine)) {
    if (row.event === 'CodonTransitioned') table[row.source as CodonStatus].push(row.target as CodonStatus);
  }
  for (const status of CODON_STATUSES) Object.freeze(table[status]);
  return Object.freeze(table);
}

/** The seed's `CodonTransitions` map, derived from the machine: the states each state may move to. */
export const CodonTransitions = derivedTransitions();

export function canTransitionCodon(from: CodonStatus, to: CodonStatus): boolean {
  return Object.hasOwn(CodonTransitions, from) && CodonTransitions[from].includes(to);
}

/**
 * Throws `InvalidTransitionError` ("Invalid transition from X to Y") when the machine has no edge
 * from `from` to `to`, and `MetadataValidationError` naming each missing or wrong field when
 * `metadata` does not satisfy what `to` requires.
 */
export function validateCodonTransition(from: CodonStatus, to: CodonStatus, metadata?: unknown): void {
  if (!canTransitionCodon(from, to)) {
    throw new InvalidTransitionError(String(from), 'CodonTransitioned', `Invalid transition from ${String(from)} to ${String(to)}`);
  }
  const result = codonMetadataSchemas[to].safeParse(metadata);
  if (!result.success) throw metadataErrorFromIssues(to, metadata, result.error.issues);
}
