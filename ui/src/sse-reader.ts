/**
 * Server-sent events read from a `fetch` body, as EventSource would parse them (the HTML
 * standard's rules: lines end in CR, LF or CRLF; `event`, `data` and `id` fields; a blank line
 * dispatches; a line starting with `:` is a comment). The view reads its step stream this way, not
 * with EventSource, because EventSource cannot send the `Authorization` header its credential
 * rides in.
 */
export interface ServerSentEvent {
  readonly event: string;
  readonly data: string;
}

/**
 * Calls `onEvent` for each event of `body` until it ends (resolves) or fails (rejects); `onId` with
 * each id the stream sets, for a reconnect's `Last-Event-ID`.
 */
export async function readEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: ServerSentEvent) => void,
  onId: (id: string) => void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  const line = (text: string) => {
    if (text === '') {
      if (data.length > 0) onEvent({ event: event || 'message', data: data.join('\n') });
      event = '';
      data = [];
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? '' : text.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) onId(value);
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    // A CR at the very end may be the first half of a CRLF: kept until the next chunk says.
    const lines = buffer.split(/\r\n|\r(?!$)|\n/);
    buffer = lines.pop()!;
    for (const text of lines) line(text);
  }
}
