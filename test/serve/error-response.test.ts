/** The API's answer to the lease errors: 409, the typed name and message, and what a client needs to act (the holder, the leases). */
import { describe, expect, it } from 'vitest';
import { errorBody, errorStatus } from '../../src/serve/error-response.js';
import { LeaseLostError, RunHeldError, type RunLease } from '../../src/stores/store.js';

const held: RunLease = {
  holder: 'b',
  state: 'held',
  epoch: 4,
  expiresAt: Date.UTC(2026, 0, 1, 9, 0, 10),
  renewedAt: Date.UTC(2026, 0, 1, 9),
};

describe('lease errors over HTTP', () => {
  it('RunHeldError: 409 naming the run and the host that holds it', () => {
    const error = new RunHeldError('job-1', held);
    expect(errorStatus(error)).toBe(409);
    expect(JSON.parse(JSON.stringify(errorBody(error)))).toEqual({
      error: 'RunHeldError',
      kind: 'conflict',
      message:
        "Run 'job-1' is hosted by 'b' (epoch 4, lease until 2026-01-01T09:00:10.000Z): send its events to that host, or retry once its lease runs out.",
      runId: 'job-1',
      holder: 'b',
      lease: held,
    });
  });

  it('LeaseLostError: 409 with each run lost, the lease written under and the one stored now', () => {
    const error = new LeaseLostError([
      { runId: 'job-1', holder: 'a', epoch: 3, stored: held },
      { runId: 'job-2', holder: 'a', epoch: 1, stored: undefined },
    ]);
    expect(errorStatus(error)).toBe(409);
    expect(JSON.parse(JSON.stringify(errorBody(error)))).toEqual({
      error: 'LeaseLostError',
      kind: 'conflict',
      message: expect.stringMatching(
        /^Commit refused: run 'job-1' is held by 'b' at epoch 4, not held by 'a' at epoch 3; run 'job-2' is not leased, not held by 'a' at epoch 1\. This host lost the run/,
      ),
      lost: [
        { runId: 'job-1', holder: 'a', epoch: 3, stored: held },
        { runId: 'job-2', holder: 'a', epoch: 1, stored: null },
      ],
    });
  });

  it("an error that is not statewright's own is internal: 500", () => {
    expect(errorBody(new Error('boom'))).toEqual({ error: 'Error', kind: 'internal', message: 'boom' });
    expect(errorStatus(new Error('boom'))).toBe(500);
  });
});
