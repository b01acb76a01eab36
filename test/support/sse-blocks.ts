/** One server-sent event as the step stream writes it: its `event`, `id` and `data` fields. */
export interface SseEvent {
  readonly event: string | undefined;
  readonly id: string | undefined;
  readonly data: string | undefined;
}

/**
 * Takes the complete events (blocks ended by a blank line) off the front of `buffer`: the events,
 * and what is left to wait for more text.
 */
export function takeSseEvents(buffer: string): { events: SseEvent[]; rest: string } {
  const events: SseEvent[] = [];
  let end: number;
  while ((end = buffer.indexOf('\n\n')) >= 0) {
    const lines = buffer.slice(0, end).split('\n');
    buffer = buffer.slice(end + 2);
    const field = (name: string) => lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
    events.push({ event: field('event'), id: field('id'), data: field('data') });
  }
  return { events, rest: buffer };
}
