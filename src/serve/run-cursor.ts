/**
 * The `cursor` of `GET /api/runs`: a page's `next` (`RunCursor`: the last run's creation time and
 * id) as an opaque string, the base64url of the JSON `[createdAt, runId]`. A client passes it back
 * as it got it; one it made up or cut short is refused, naming the parameter.
 */
import type { RunCursor } from '../stores/store.js';
import { QueryParameterError } from './serve-errors.js';

const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function encodeCursor(cursor: RunCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.runId])).toString('base64url');
}

/** The cursor `text` stands for, or `QueryParameterError` saying what is wrong with it. */
export function decodeCursor(text: string): RunCursor {
  const refuse = (problem: string): never => {
    throw new QueryParameterError(
      'cursor',
      text,
      `${problem}; pass the 'next' of the page before as it came, or leave 'cursor' out to start from the newest run`,
      '/api/runs?limit=50&cursor=<the next of the page before>',
    );
  };
  if (!BASE64URL.test(text)) return refuse('it is not base64url, so not a cursor this server gave out');
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return refuse('it does not decode to a cursor this server gave out (cut short?)');
  }
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    !Number.isSafeInteger(value[0]) ||
    typeof value[1] !== 'string' ||
    value[1] === ''
  )
    return refuse('it decodes to something other than a cursor this server gave out');
  return { createdAt: value[0] as number, runId: value[1] as string };
}
