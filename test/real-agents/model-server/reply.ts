/**
 * What a scripted model server answers one model call with, in terms that fit both APIs: the
 * blocks of one assistant message (text, or a call of one of the agent's tools), its usage, and how
 * the answer goes wrong or slow. anthropic-stream.ts renders it as the Messages API's server-sent
 * events (Claude Code), responses-stream.ts as the Responses API's (Codex).
 */

/** One block of the assistant's message. */
export type ReplyBlock =
  | { readonly text: string }
  /** A tool call: Claude's `tool_use` block, Codex's `function_call` item (its shell tool is `exec_command` with `cmd`). */
  | { readonly tool: string; readonly input: Record<string, unknown>; readonly id?: string };

export interface ReplyUsage {
  readonly input?: number;
  readonly output?: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
}

/** A model call as the server received it, for a reply's `when` and for the test to read. */
export interface ModelRequest {
  readonly api: 'messages' | 'responses';
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Record<string, unknown>;
  /** The text of every block the request sends (user turns, tool results), newest last. */
  readonly texts: readonly string[];
}

export interface Reply {
  /** Answers only a request this accepts; the first reply in the script that accepts one is used. */
  readonly when?: (request: ModelRequest) => boolean;
  readonly blocks?: readonly ReplyBlock[];
  /** Default: 10 input tokens, as many output tokens as the blocks have words (at least 1). */
  readonly usage?: ReplyUsage;
  /** An HTTP error instead of a stream (529 overloaded, 500 ...), with this message. */
  readonly status?: number;
  readonly errorMessage?: string;
  /** The connection is destroyed after this many events: a stream cut midway. */
  readonly cutAfterEvents?: number;
  /** Waits this long before answering (a slow model: for the agents' own timeouts). */
  readonly delayMs?: number;
  /** The stream stops after this many events until the promise settles (a reply the test holds open). */
  readonly holdAfterEvents?: number;
  readonly hold?: Promise<unknown>;
  /** Answered this many times (default 1); `Infinity` for a reply that answers every call it accepts. */
  readonly times?: number;
}

export const DEFAULT_INPUT_TOKENS = 10;

export function outputTokens(reply: Reply): number {
  if (reply.usage?.output !== undefined) return reply.usage.output;
  const words = (reply.blocks ?? []).reduce(
    (sum, block) =>
      sum + ('text' in block ? block.text : JSON.stringify(block.input)).split(/\s+/).filter(Boolean).length,
    0,
  );
  return Math.max(1, words);
}

/** The event names and payloads of one streamed answer, before they are written. */
export interface StreamEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
}
