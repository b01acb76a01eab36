/**
 * How `statewright mcp` reaches runs: in this process, on a `Runtime` it is given (an app that
 * embeds statewright), or through a running `statewright serve`'s HTTP API (the agent's MCP server
 * is a process of its own, started by the agent). The tools are written once against this.
 */
import type { RunEvent, SendOptions } from '../actor-contract/run-handle.js';
import type { Explanation } from '../explain/explanation.js';
import type { RunJson } from '../serve/run-json.js';

export interface RunAccess {
  /** Where the runs are, for messages: "this process", or the server's URL. */
  readonly where: string;
  /** The run as the HTTP API shows it. */
  run(runId: string): Promise<RunJson>;
  /** Why the run is where it is, and the events it accepts with what each needs. */
  explain(runId: string): Promise<Explanation>;
  /** The event applied and committed (or the typed refusal): the run after it. */
  send(runId: string, event: RunEvent, options: SendOptions): Promise<RunJson>;
  /**
   * Calls `listener` with the run after each step committed past `since` (its seq), those already
   * committed first, until the returned function is called. `onError` hears of a watch that broke.
   */
  watch(runId: string, since: number, listener: (run: RunJson) => void, onError: (error: Error) => void): () => void;
  /**
   * `call` again while the host is away (a serve stopped and not yet back: serve-away.ts), until it
   * answers, refuses for good (that error), or `signal` aborts. In this process: `call` once.
   */
  whileAway<T>(call: () => Promise<T>, signal: AbortSignal): Promise<T>;
  close(): Promise<void>;
}
