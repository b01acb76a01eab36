import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { LazySnapshotRow } from '../../src/runtime/lazy-snapshot-row.js';
import { plainRow, type StoredRun } from '../../src/stores/store.js';

const owner = { id: 'test', pid: 1, pidStart: '1', host: 'h' };

describe('a lazy snapshot row', () => {
  const logic = lifecycles.execution.machine;
  const actor = createActor(logic).start();
  actor.send({ type: 'ENQUEUE' });
  const previous: StoredRun = {
    runId: 'r1',
    machine: 'execution',
    version: 1,
    status: 'active',
    state: 'pending',
    snapshot: null,
    input: { job: 'build' },
    seq: 0,
    owner,
    createdAt: 1,
    updatedAt: 1,
  };
  const row = new LazySnapshotRow(previous, logic, actor.getSnapshot(), {
    status: 'active',
    state: 'queued',
    seq: 1,
    owner,
    updatedAt: 2,
  });

  it('computes the persisted snapshot once, when first read, as XState would', () => {
    const first = row.snapshot;
    expect(first).toEqual(logic.getPersistedSnapshot(actor.getSnapshot()));
    expect(row.snapshot).toBe(first);
  });

  it('carries its snapshot into JSON and plain copies, though it is not an own property', () => {
    const plain = plainRow(row);
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
    expect(plain).toEqual({
      runId: 'r1',
      machine: 'execution',
      version: 1,
      status: 'active',
      state: 'queued',
      snapshot: row.snapshot,
      input: { job: 'build' },
      seq: 1,
      owner,
      createdAt: 1,
      updatedAt: 2,
    });
    expect(JSON.parse(JSON.stringify(row))).toEqual(JSON.parse(JSON.stringify(plain)));
    expect(Object.keys(row)).not.toContain('snapshot');
  });
});
