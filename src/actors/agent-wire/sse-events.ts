/**
 * Server-sent events read as they pass: bytes in, each complete event's `data` (parsed as JSON)
 * out. The metering proxy feeds it a copy of every chunk it forwards, so it never holds the stream
 * back; an event split across chunks waits here for its end. A `data` that is not JSON, and an event
 * longer than the bound, are skipped (the agent gets them untouched either way).
 */

/** An event longer than this is dropped unread (a model's usage events are a few hundred bytes). */
const MAX_EVENT_BYTES = 4 * 1024 * 1024;

export class SseEvents {
  #pending = '';
  readonly #decoder = new TextDecoder();

  /**
   * The events completed by `chunk`, their `data` parsed; `wanted` skips, unparsed, an event whose
   * text it refuses (a text delta among usage events: most of a stream, and most of the work).
   */
  push(chunk: Uint8Array, wanted: (block: string) => boolean = () => true): unknown[] {
    this.#pending += this.#decoder.decode(chunk, { stream: true });
    const events: unknown[] = [];
    for (;;) {
      const end = /\r?\n\r?\n/.exec(this.#pending);
      if (!end) break;
      const block = this.#pending.slice(0, end.index);
      this.#pending = this.#pending.slice(end.index + end[0].length);
      if (!wanted(block)) continue;
      const data = dataOf(block);
      if (data !== undefined) events.push(data);
    }
    if (this.#pending.length > MAX_EVENT_BYTES) this.#pending = '';
    return events;
  }
}

function dataOf(block: string): unknown {
  const lines = block
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
  if (lines.length === 0) return undefined;
  try {
    return JSON.parse(lines.join('\n'));
  } catch {
    return undefined;
  }
}
