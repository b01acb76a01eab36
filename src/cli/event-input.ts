import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { parseJson } from './parse-json.js';
import { UsageError } from './usage-error.js';

/** Where `send` reads its event: `-` (as the argument or the file) is stdin. */
export interface EventSource {
  readonly argument: string | undefined;
  readonly file: string | undefined;
}

/** An event as a person types it. */
export const EVENT_EXAMPLE = `'{"type":"START"}'`;
const STDIN = '-';
/** An event type alone, as `send` also takes it: a word that cannot be JSON (`SUBMIT`, `agent.exited`). */
const BARE_TYPE = /^(?!(?:true|false|null)$)[A-Za-z_][A-Za-z0-9_.:-]*$/;

/** Why a file could not be read, in words. */
const UNREADABLE: Record<string, string> = {
  ENOENT: 'there is no such file',
  EISDIR: 'it is a folder',
  EACCES: 'permission denied',
};

async function readEventFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new UsageError(
      `--event-file ${path} cannot be read: ${UNREADABLE[code ?? ''] ?? message}. Give a file that holds the event as JSON, or --event-file - to read it from stdin.`,
    );
  }
}

/**
 * The event `send` applies, from its argument, a file or stdin (a shell argument cannot carry more
 * than about 128 KB), parsed before anything is opened: a mistake sends nothing.
 */
export async function readEvent({ argument, file }: EventSource, stdin: Readable): Promise<unknown> {
  if (argument !== undefined && file !== undefined) {
    throw new UsageError(
      `send takes the event as its argument or from --event-file, not both: leave out '${argument}' or --event-file ${file}.`,
    );
  }
  if (argument === undefined && file === undefined) {
    throw new UsageError(
      `send needs an event: statewright send <run> ${EVENT_EXAMPLE}, or --event-file <path>, or - to read it from stdin.`,
    );
  }
  // A bare event type is the event with nothing else: `send post-1 SUBMIT`.
  if (argument !== undefined && BARE_TYPE.test(argument)) return { type: argument };
  if (argument !== undefined && argument !== STDIN)
    return parseJson(argument, 'The event', `Example: ${EVENT_EXAMPLE}`, argument);
  const fromStdin = (argument ?? file) === STDIN;
  const where = fromStdin ? 'The event read from stdin' : `The event in ${file}`;
  const json = fromStdin ? await text(stdin) : await readEventFile(file!);
  if (!json.trim()) throw new UsageError(`${where} is empty: it should hold the event as JSON, e.g. ${EVENT_EXAMPLE}.`);
  return parseJson(json, where, `It should hold the event, e.g. ${EVENT_EXAMPLE}.`);
}
