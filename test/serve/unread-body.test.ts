/**
 * The rest of a body the API refuses: read and dropped when declared and within the limit (the
 * client can then read the 413 on a connection that stays usable), left alone otherwise.
 */
import { describe, expect, it } from 'vitest';
import { dropUnreadBody } from '../../src/serve/unread-body.js';

/** A body of `size` bytes in 64 KiB chunks, counting what was pulled from it. */
function request(size: number, headers: Record<string, string>) {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const chunk = Math.min(64 * 1024, size - pulled);
        if (chunk === 0) return controller.close();
        pulled += chunk;
        controller.enqueue(new Uint8Array(chunk));
      },
    },
    { highWaterMark: 0 },
  );
  return {
    request: new Request('http://host/api/runs', { method: 'POST', body, headers, duplex: 'half' } as RequestInit),
    pulled: () => pulled,
  };
}

describe('dropUnreadBody', () => {
  it('reads a declared body within the limit to its end', async () => {
    const { request: r, pulled } = request(1_000_000, { 'content-length': '1000000' });
    expect(await dropUnreadBody(r, 2_000_000)).toBe(true);
    expect(pulled()).toBe(1_000_000);
  });

  it('leaves a body over the limit, one of unknown length and one already being read', async () => {
    const over = request(3_000_000, { 'content-length': '3000000' });
    expect(await dropUnreadBody(over.request, 2_000_000)).toBe(false);
    expect(over.pulled()).toBe(0);
    const unknown = request(1000, {});
    expect(await dropUnreadBody(unknown.request, 2_000_000)).toBe(false);
    expect(unknown.pulled()).toBe(0);
    const reading = request(1000, { 'content-length': '1000' });
    reading.request.body!.getReader();
    expect(await dropUnreadBody(reading.request, 2_000_000)).toBe(false);
  });
});
