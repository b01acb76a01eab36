import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory under the system temp folder, and its removal. */
export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `statewright-${prefix}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}
