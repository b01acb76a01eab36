/**
 * Every typed error of statewright extends the one base, so its HTTP status and exit code come
 * from its kind (src/errors.ts), never from its name. Read from the sources: a class that extends
 * `Error` directly anywhere in src/ or machines/ is one the table does not reach.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_KINDS, StatewrightError, errorKind, exitCode, httpStatus } from '../../src/errors.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

describe('one error base', () => {
  it('no error class in src/ or machines/ extends Error but StatewrightError itself', () => {
    const direct = [...sources('src'), ...sources('machines')].flatMap((file) =>
      [...readFileSync(join(root, file), 'utf8').matchAll(/class (\w+) extends Error\b/g)].map(
        (match) => `${file}: ${match[1]}`,
      ),
    );
    expect(direct).toEqual(['src/errors.ts: StatewrightError']);
  });

  it('maps kinds to statuses and exit codes, and anything else to internal', () => {
    class Taken extends StatewrightError {
      readonly kind = 'conflict';
    }
    expect([errorKind(new Taken()), httpStatus(new Taken()), exitCode(new Taken())]).toEqual(['conflict', 409, 1]);
    expect([errorKind(new Error('x')), httpStatus(new Error('x')), exitCode('x')]).toEqual(['internal', 500, 1]);
    expect(ERROR_KINDS.usage.exitCode).toBe(2);
  });
});
