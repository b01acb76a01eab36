/**
 * The rest of a request body the API refuses unread (one over its limit). A client that is still
 * sending when the answer comes reads that answer only if the server reads on: a connection closed
 * (or reset) under its writes fails with EPIPE before it sees the 413. So a declared body up to
 * `limit` bytes is read to its end and dropped, chunk by chunk, never buffered whole; anything else
 * (larger, or of unknown length and already being read) is left, and its connection is closed.
 */
export const DROPPED_BODY_LIMIT = 16 * 1024 * 1024;

/** Reads `request`'s body to its end, dropping it; false (nothing read) when it is too large, of unknown length or already being read. */
export async function dropUnreadBody(request: Request, limit = DROPPED_BODY_LIMIT): Promise<boolean> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  const body = request.body;
  if (!body || body.locked || !(declared <= limit)) return false;
  const reader = body.getReader();
  while (!(await reader.read()).done);
  return true;
}
