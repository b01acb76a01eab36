/**
 * Follows an append-only file line by line from a byte offset, as `tail -f` does. Each line comes
 * with the byte offset it starts at: a stable name for it, so a line read twice (after a restart)
 * is recognisably the same line.
 */
import { closeSync, openSync, readSync } from 'node:fs';

export interface TailLine {
  line: string;
  offset: number;
}

export class LineTail {
  #fd: number | undefined;
  #offset: number;
  #pending: Buffer = Buffer.alloc(0);
  #buffer = Buffer.alloc(64 * 1024);

  constructor(
    readonly path: string,
    offset = 0,
  ) {
    this.#offset = offset;
  }

  /** Complete lines appended since the last read. */
  read(): TailLine[] {
    this.#fd ??= openSync(this.path, 'r');
    const lines: TailLine[] = [];
    for (;;) {
      const n = readSync(this.#fd, this.#buffer, 0, this.#buffer.length, this.#offset);
      if (n === 0) break;
      const start = this.#offset - this.#pending.length;
      this.#offset += n;
      let chunk = Buffer.concat([this.#pending, this.#buffer.subarray(0, n)]);
      let lineStart = start;
      for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10)) {
        const line = chunk.subarray(0, newline).toString('utf8').replace(/\r$/, '');
        if (line.trim() !== '') lines.push({ line, offset: lineStart });
        lineStart += newline + 1;
        chunk = chunk.subarray(newline + 1);
      }
      this.#pending = Buffer.from(chunk);
    }
    return lines;
  }

  /** Everything left, the last line even without its newline: call once the writer is gone. */
  finish(): TailLine[] {
    const lines = this.read();
    const rest = this.#pending.toString('utf8').trim();
    if (rest !== '') lines.push({ line: rest, offset: this.#offset - this.#pending.length });
    this.#pending = Buffer.alloc(0);
    return lines;
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}
