/**
 * How SQLite holds a string that is not well-formed Unicode (a lone surrogate), as a run id written
 * before the runtime checked ids can be. better-sqlite3 writes it as generalized UTF-8 (WTF-8: the
 * surrogate as three bytes, ED A0 80 for U+D800) but reads those bytes back as U+FFFD each, so the
 * id read is not the id written: its checksums fail, and a lookup by the id read finds nothing.
 * The store reads such an id back as it was written, from its bytes.
 */

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The SQL of a column holding the bytes of `column` as hex, only where they may hold a surrogate
 * (a byte ED, which also starts Hangul): NULL for every other id, so the common read costs nothing.
 */
export const rawText = (column: string, as?: string) =>
  `CASE WHEN instr(CAST(${column} AS BLOB), x'ED') THEN hex(${column}) END${as ? ` AS ${as}` : ''}`;

/** The id a row holds as it was written: `read` as better-sqlite3 gave it, `hex` its bytes (see `rawText`). */
export function asWritten(read: string, hex: string | null | undefined): string {
  if (!hex || !read.includes('\ufffd')) return read;
  return fromWtf8(Buffer.from(hex, 'hex')) ?? read;
}

/** What better-sqlite3 reads back of `text` written to SQLite: `text` itself unless it is not well-formed. */
export function asRead(text: string): string {
  return LONE_SURROGATE.test(text) ? toWtf8(text).toString('utf8') : text;
}

/** The bytes better-sqlite3 writes for `text`: UTF-8, with a lone surrogate as its own three bytes. */
export function toWtf8(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
      i++;
    }
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    else
      bytes.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
  }
  return Buffer.from(bytes);
}

/** The string whose `toWtf8` is `bytes`, or undefined when they are not such bytes (damage). */
export function fromWtf8(bytes: Uint8Array): string | undefined {
  let text = '';
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i]!;
    const length =
      lead < 0x80
        ? 1
        : lead >= 0xc2 && lead < 0xe0
          ? 2
          : lead >= 0xe0 && lead < 0xf0
            ? 3
            : lead >= 0xf0 && lead < 0xf5
              ? 4
              : 0;
    if (length === 0 || i + length > bytes.length) return undefined;
    let code = length === 1 ? lead : lead & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) {
      const byte = bytes[i + k]!;
      if ((byte & 0xc0) !== 0x80) return undefined;
      code = (code << 6) | (byte & 0x3f);
    }
    // Overlong forms and code points past Unicode are damage, not text.
    if (code < [0, 0, 0x80, 0x800, 0x10000][length]! || code > 0x10ffff) return undefined;
    text += String.fromCodePoint(code);
    i += length;
  }
  // Two surrogates written apart (CESU-8) would decode to a pair that better-sqlite3 never writes so.
  return toWtf8(text).equals(bytes) ? text : undefined;
}
