import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/** A fresh directory under the system temp folder, and its removal. */
export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `statewright-${prefix}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** A fresh directory under the system temp folder, removed when the current test finishes, however it finishes. */
export function testDir(prefix: string): string {
  const path = mkdtempSync(join(tmpdir(), `statewright-${prefix}-`));
  onTestFinished(() => rmSync(path, { recursive: true, force: true }));
  return path;
}
