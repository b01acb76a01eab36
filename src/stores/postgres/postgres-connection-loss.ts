/**
 * Telling a lost connection from a refusal. A lost connection (the server went away, the backend
 * was terminated, the network dropped) says nothing about the data; a refusal (a constraint, a
 * syntax error) is the server's answer. Only the first may be retried as it is.
 */
import pg from 'pg';

/** Socket errors of Node that mean the server could not be reached or the connection broke. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs the server sends when it ends or refuses the session itself: class 08 (connection
 * exception), 57P01-57P03 (terminated by an administrator, crash shutdown, not accepting
 * connections yet) and 53300 (too many connections).
 */
const isSessionEnded = (code: string) =>
  code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300';

/** What pg's client says when its socket ended or broke (it gives these no code). */
const CLIENT_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect)/;

export function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof pg.DatabaseError) return error.code !== undefined && isSessionEnded(error.code);
  const code = (error as { code?: unknown }).code;
  return (typeof code === 'string' && NETWORK_CODES.has(code)) || CLIENT_MESSAGES.test(error.message);
}
