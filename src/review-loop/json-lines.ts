/**
 * Append-only JSON-lines files (the bridge's message log, the transcript). A crash can leave the
 * last line half written; reading reports it (path, line, reason) instead of failing or silently
 * dropping it, and a writer cuts it off before appending so the next line starts clean.
 */
import { open, readFile, truncate, type FileHandle } from 'node:fs/promises';
import type { z } from 'zod';

export interface LineProblem {
  readonly path: string;
  /** 1-based line number. */
  readonly line: number;
  readonly reason: string;
}

export interface JsonLines<T> {
  readonly records: T[];
  readonly problems: LineProblem[];
  /** Bytes up to the end of the last complete line: where a torn last line starts. */
  readonly completeLength: number;
  readonly tornTail: boolean;
}

/** Reads every line that parses and validates; reports every one that does not. A missing file is empty. */
export async function readJsonLines<T>(path: string, schema: z.ZodType<T>): Promise<JsonLines<T>> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { records: [], problems: [], completeLength: 0, tornTail: false };
    throw error;
  }
  const records: T[] = [];
  const problems: LineProblem[] = [];
  let start = 0;
  let line = 0;
  for (let end = bytes.indexOf(0x0a); end !== -1; start = end + 1, end = bytes.indexOf(0x0a, start)) {
    line++;
    const text = bytes.subarray(start, end).toString('utf8');
    if (text.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      problems.push({ path, line, reason: `not valid JSON (${(error as Error).message}); the line was skipped` });
      continue;
    }
    const checked = schema.safeParse(json);
    if (checked.success) records.push(checked.data);
    else
      problems.push({
        path,
        line,
        reason: `not a valid record (${checked.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}); the line was skipped`,
      });
  }
  const tornTail = start < bytes.length;
  if (tornTail) {
    problems.push({
      path,
      line: line + 1,
      reason: `torn last line (${bytes.length - start} bytes without a newline): the writer stopped mid-line; it is ignored`,
    });
  }
  return { records, problems, completeLength: start, tornTail };
}

/** Appends JSON lines, each flushed to disk before `append` resolves; appends are applied in call order. */
export class JsonLinesWriter {
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly path: string,
    private readonly file: FileHandle,
  ) {}

  /** Opens `path` for appending, first cutting off a torn last line (`completeLength` from `readJsonLines`). */
  static async open(path: string, completeLength?: number): Promise<JsonLinesWriter> {
    if (completeLength !== undefined) {
      await truncate(path, completeLength).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    }
    return new JsonLinesWriter(path, await open(path, 'a', 0o600));
  }

  append(record: unknown): Promise<void> {
    const line = `${JSON.stringify(record)}\n`;
    const write = this.#queue.then(async () => {
      await this.file.write(line);
      await this.file.datasync();
    });
    this.#queue = write.catch(() => {});
    return write;
  }

  async close(): Promise<void> {
    await this.#queue;
    await this.file.close();
  }
}
