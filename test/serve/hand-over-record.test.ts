/** The hand-over record a graceful `serve` stop leaves, and how the next serve reads the recovery hooks through it. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import type { RecoveringRun } from '../../machines/lifecycle.js';
import { adoptingHandOver, readHandOver, removeHandOver, writeHandOver } from '../../src/serve/hand-over.js';
import { testDir } from '../stores/temp-dir.js';

const orphan = (ownerId: string): RecoveringRun => ({
  runId: 's-1',
  snapshot: { value: 'running', context: {}, status: 'active' },
  previousOwner: { id: ownerId, pid: 1, host: 'h', alive: false },
  now: 1000,
});

describe('the hand-over record', () => {
  it('is written, read and removed; a damaged or foreign file counts as none', () => {
    const path = join(testDir('hand-over'), 'state.db.handover.json');
    expect(readHandOver(path)).toBeUndefined();
    writeHandOver(path, { owners: ['a', 'b'], at: 5 });
    expect(readHandOver(path)).toEqual({ owners: ['a', 'b'], at: 5 });
    removeHandOver(path);
    expect(readHandOver(path)).toBeUndefined();
    writeFileSync(path, '{"owners": ["a"');
    expect(readHandOver(path)).toBeUndefined();
    writeFileSync(path, '{"owner": "a", "at": 5}');
    expect(readHandOver(path)).toBeUndefined();
  });

  it('skips the recovery hooks only for the runs of the owners that handed over: others are still failed as orphaned', () => {
    const adopting = adoptingHandOver(lifecycles, ['serve-1']);
    expect(adopting.session!.recover!(orphan('serve-1'))).toEqual([]);
    expect(adopting.session!.recover!(orphan('crashed-daemon'))).toEqual([{ type: 'SESSION_ORPHANED', at: 1000 }]);
    expect(lifecycles.session!.recover!(orphan('serve-1'))).toEqual([{ type: 'SESSION_ORPHANED', at: 1000 }]);
    expect(adoptingHandOver(lifecycles, [])).toBe(lifecycles);
    expect(Object.keys(adopting)).toEqual(Object.keys(lifecycles));
  });
});
