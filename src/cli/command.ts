import type { Readable } from 'node:stream';
import type { Registry } from '../config/registry.js';

/** What the command line reads and writes beyond its results: the process's in `main`, a test's own in tests. */
export interface CliIo {
  /** Where `send -` and `send --event-file -` read their event. */
  readonly stdin: Readable;
  /** Help goes to `writeOut`; usage mistakes and the errors a command throws to `writeErr`. */
  readonly writeOut: (text: string) => void;
  readonly writeErr: (text: string) => void;
}

/** One run of the program: its IO, and the exit code its command's action resolved with. */
export interface Cli {
  readonly io: CliIo;
  /**
   * Wraps a command's action (commander ignores what an action returns): the number `run`
   * resolves with becomes the exit code, e.g. 1 when `verify` finds a run its log does not explain.
   */
  exitsWith<A extends unknown[]>(run: (...args: A) => Promise<number>): (...args: A) => Promise<void>;
  /**
   * The lifecycles the command works with: the built-in ones and those of the config file
   * (`--config`, `STATEWRIGHT_CONFIG`, or statewright.config.* in the working folder), read once.
   * `needs`: the lifecycles the command works with, by name: of the built-ins only those are
   * loaded (config/lazy-registry.ts); left out, every one.
   */
  registry(needs?: readonly string[]): Promise<Registry>;
  /** The config file the command reads (`findConfig`), without running it; undefined: none. */
  configFile(): string | undefined;
}
