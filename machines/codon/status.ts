/**
 * The codon's helpers, derived from its machine, and the seed's pure check of a `CodonTransitioned` (seed-systems.md §1.1, steps 1 and 2) for callers that hold a
 * record rather than a running machine.
 */
import { InvalidTransitionError } from '../../src/graph/invalid-transition-error.js';
import { lifecycleHelpers, withHelpers } from '../../src/graph/lifecycle-helpers.js';
import { metadataErrorFromIssues } from '../../src/graph/metadata-guard.js';
import type { CodonEvent } from './events.js';
import { codonMachine } from './machine.js';
import { codonMetadataSchemas } from './schemas.js';
import type { CodonStatus, TerminalCodonStatus } from './types.js';

const helpers = lifecycleHelpers<CodonStatus, CodonEvent['type'], TerminalCodonStatus>(codonMachine);

/**
 * Throws `InvalidTransitionError` ("Invalid transition from X to Y") when the machine has no edge
 * from `from` to `to`, and `MetadataValidationError` naming each missing or wrong field when
 * `metadata` does not satisfy what `to` requires.
 */
function validateTransition(from: CodonStatus, to: CodonStatus, metadata?: unknown): void {
  if (!helpers.canMove(from, to)) {
    throw new InvalidTransitionError(
      String(from),
      'CodonTransitioned',
      `Invalid transition from ${String(from)} to ${String(to)}`,
    );
  }
  const result = codonMetadataSchemas[to].safeParse(metadata);
  if (!result.success) throw metadataErrorFromIssues(to, metadata, result.error.issues);
}

/**
 * The codon lifecycle's helpers: `transitions` is the seed's `CodonTransitions` map (the states each
 * state may move to), `canMove(from, to)` its check, `isTerminal` the seed's `isTerminalCodonStatus`,
 * and `validateTransition(from, to, metadata)` the seed's validation, besides `states`,
 * `terminalStates`, `activeStates`, `isState`, `validEvents` and `canTransition(status, event)`.
 */
export const codon = withHelpers({ validateTransition }, helpers);
