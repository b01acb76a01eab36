/**
 * `--store memory` for a command that exits when done: a memory store lives in the memory of one
 * process, so a run such a command starts would be gone as it exits, and what it reads is an empty
 * store of its own, never the one a `serve --store memory` holds. Refused, saying what to do.
 */
import { StatewrightError } from '../errors.js';

export class MemoryStoreRefusedError extends StatewrightError {
  readonly kind = 'usage';
  override readonly name = 'MemoryStoreRefusedError';
  constructor(
    readonly command: string,
    why: string,
  ) {
    super(
      `--store memory keeps runs in the memory of one process, and \`statewright ${command}\` exits when it is done: ${why}. ` +
        'Keep runs in a file (leave --store out for the default sqlite store, or give --store sqlite:<file>), ' +
        'or send this to the `statewright serve --store memory` that holds them: --server <the URL it printed>.',
    );
  }
}

/** Whether a `--store` value names a memory store. */
export const isMemoryStore = (spec: string | undefined): boolean =>
  spec === 'memory' || spec?.startsWith('memory:') === true;

/** Throws `MemoryStoreRefusedError` when `spec` names a memory store: `why` says what would be lost. */
export function refuseMemoryStore(spec: string | undefined, command: string, why: string): void {
  if (isMemoryStore(spec)) throw new MemoryStoreRefusedError(command, why);
}
