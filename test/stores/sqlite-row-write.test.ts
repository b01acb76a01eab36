import { describe, expect, it } from 'vitest';
import { CHECKPOINT_EVERY, rowWrite, type RowWrite, type StepFacts } from '../../src/stores/sqlite/row-write.js';

/** An ordinary step: an event appended after an event, nothing changing, the row just brought up to date. */
const step = (facts: Partial<StepFacts> = {}): StepFacts => ({
  created: false,
  appended: true,
  firstEvent: false,
  statusChanged: false,
  ownerChanged: false,
  lag: 1,
  claims: false,
  ...facts,
});

describe('sqlite store: the row write a commit chooses (rowWrite)', () => {
  it('keeps the row for an ordinary step: the step lives in its event, the row lags', () => {
    expect(rowWrite(step())).toBe('keep');
    expect(rowWrite(step({ lag: CHECKPOINT_EVERY - 1 }))).toBe('keep');
  });

  it('keeps the row a creation just inserted, when the creation has no event', () => {
    expect(rowWrite(step({ created: true, appended: false, firstEvent: true, lag: 0 }))).toBe('keep');
  });

  it('brings the row up to date, status and version staying, once it lags CHECKPOINT_EVERY commits', () => {
    expect(rowWrite(step({ lag: CHECKPOINT_EVERY }))).toBe('checkpoint');
    expect(rowWrite(step({ lag: CHECKPOINT_EVERY + 5 }))).toBe('checkpoint');
  });

  it('brings the row up to date when the run had no event yet (the chain starts from the row), also right after its creation', () => {
    expect(rowWrite(step({ firstEvent: true }))).toBe('checkpoint');
    expect(rowWrite(step({ created: true, firstEvent: true, lag: 0 }))).toBe('checkpoint');
  });

  it('brings the row up to date for a step of an existing run that appends no event', () => {
    expect(rowWrite(step({ appended: false }))).toBe('checkpoint');
  });

  it('brings the row up to date when only the owner changes (the row holds it current)', () => {
    expect(rowWrite(step({ ownerChanged: true }))).toBe('checkpoint');
  });

  it('writes the status and version too when they change', () => {
    expect(rowWrite(step({ statusChanged: true }))).toBe('checkpoint and status');
    expect(rowWrite(step({ statusChanged: true, ownerChanged: true, lag: CHECKPOINT_EVERY }))).toBe(
      'checkpoint and status',
    );
  });

  it('writes only the lease and the owner for a claiming step whose checkpoint is not due, whatever the owner', () => {
    expect(rowWrite(step({ claims: true }))).toBe('lease');
    expect(rowWrite(step({ claims: true, ownerChanged: true }))).toBe('lease');
  });

  it('writes a claiming step’s lease with the checkpoint when one is due, and its status when that changes', () => {
    expect(rowWrite(step({ claims: true, lag: CHECKPOINT_EVERY }))).toBe('checkpoint and lease');
    expect(rowWrite(step({ claims: true, firstEvent: true }))).toBe('checkpoint and lease');
    expect(rowWrite(step({ claims: true, statusChanged: true }))).toBe('checkpoint, status and lease');
  });

  it('agrees, over every combination of the facts, with the booleans commitAll chose by before the choice was a function', () => {
    const seen = new Set<RowWrite>();
    for (let bits = 0; bits < 1 << 7; bits++) {
      const [created, appended, firstEvent, statusChanged, ownerChanged, lagging, claims] = Array.from(
        { length: 7 },
        (_, i) => (bits & (1 << i)) !== 0,
      ) as [boolean, boolean, boolean, boolean, boolean, boolean, boolean];
      const choice = rowWrite(
        step({
          created,
          appended,
          firstEvent,
          statusChanged,
          ownerChanged,
          lag: lagging ? CHECKPOINT_EVERY : 0,
          claims,
        }),
      );
      seen.add(choice);
      // As commitAll read: a creation without event continued; then claimWithStep, else checkpointClaiming
      // (followed by checkpoint when not in place), checkpointInPlace or checkpoint, else nothing.
      const checkpointDue = firstEvent || !appended || statusChanged || lagging;
      const inPlace = !statusChanged;
      let before: RowWrite;
      if (created && !appended) before = 'keep';
      else if (claims && !checkpointDue) before = 'lease';
      else if (claims || checkpointDue || ownerChanged)
        before = claims
          ? inPlace
            ? 'checkpoint and lease'
            : 'checkpoint, status and lease'
          : inPlace
            ? 'checkpoint'
            : 'checkpoint and status';
      else before = 'keep';
      expect(
        choice,
        JSON.stringify({ created, appended, firstEvent, statusChanged, ownerChanged, lagging, claims }),
      ).toBe(before);
    }
    expect([...seen].sort()).toEqual([
      'checkpoint',
      'checkpoint and lease',
      'checkpoint and status',
      'checkpoint, status and lease',
      'keep',
      'lease',
    ]);
  });
});
