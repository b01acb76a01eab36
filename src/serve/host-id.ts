/**
 * A host's id (`serve --host-id`): the holder named on every lease it takes, in `status`, `explain`
 * and the server file. It is compared as is, shown in tables and used in a file name, so it must
 * be one visible word.
 */
import { StatewrightError } from '../errors.js';

export const MAX_HOST_ID_LENGTH = 200;

/** Why `id` cannot name a host, or undefined when it can. */
export function hostIdProblem(id: string): string | undefined {
  if (id === '') return 'it is empty';
  if ([...id].length > MAX_HOST_ID_LENGTH)
    return `it is ${[...id].length} characters long, more than ${MAX_HOST_ID_LENGTH}`;
  // Separators, whitespace, control and format characters: what a table or a log line would hide.
  const hidden = /[\p{Z}\p{C}\s]/u.exec(id);
  if (hidden)
    return `it holds ${JSON.stringify(hidden[0])} (U+${hidden[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}) at position ${hidden.index}: only visible characters, no whitespace`;
  return undefined;
}

/** A host id that cannot name a host. */
export class InvalidHostIdError extends StatewrightError {
  readonly kind = 'invalid';
  override readonly name = 'InvalidHostIdError';
  constructor(
    readonly hostId: string,
    problem: string,
  ) {
    super(
      `Cannot name a host ${JSON.stringify(hostId)}: ${problem}. Give --host-id one word of visible characters, at most ${MAX_HOST_ID_LENGTH}, e.g. --host-id worker-1.`,
    );
  }
}

/** `id`, if it can name a host; otherwise `InvalidHostIdError`. */
export function checkHostId(id: string): string {
  const problem = hostIdProblem(id);
  if (problem !== undefined) throw new InvalidHostIdError(id, problem);
  return id;
}
