/**
 * What a loaded config was made from: its file and every local file it imports (esbuild's
 * metafile lists them), and a hash of their contents. serve watches those files and reports the
 * hash; the CLI hashes the same files to tell whether it reads the config serve runs.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';

export interface ConfigSource {
  /** The config file, absolute. */
  readonly file: string;
  /** The config file and the local files it imports, absolute, sorted (packages are not among them). */
  readonly inputs: readonly string[];
  /** `configHash(file, inputs)` when the config was read. */
  readonly hash: string;
}

/**
 * A hash of the inputs' contents, each under its path from the config's folder: the same files,
 * wherever the command runs, give the same hash; a file that cannot be read counts as missing.
 * `read` gives a file's text (by default from the disk; the loader passes what it compiled).
 */
export function configHash(
  file: string,
  inputs: readonly string[],
  read: (input: string) => string | undefined = readInput,
): string {
  const hash = createHash('sha256');
  const folder = dirname(file);
  for (const input of [...inputs].sort()) {
    const text = read(input);
    hash.update(relative(folder, input)).update('\0');
    hash.update(text === undefined ? '(missing)' : `=${text}`).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** A config input's text as the disk holds it now, or undefined when it cannot be read. */
export function readInput(input: string): string | undefined {
  try {
    return readFileSync(input, 'utf8');
  } catch {
    return undefined;
  }
}
