import { describe, expect, it } from 'vitest';
import { and, createActor, setup } from 'xstate';
import { z } from 'zod';
import {
  explainedGuard,
  explainRejection,
  InvalidTransitionError,
  metadataGuard,
  MetadataValidationError,
} from '../../src/graph/index.js';

const approval = z.object({ approver: z.string().min(1), ticket: z.number() });

/** The same guard inline, by name, and by `{ type }`: a refusal is explained field by field each way. */
const machines = {
  inline: setup({}).createMachine({
    initial: 'held',
    states: { held: { on: { APPROVE: { target: 'go', guard: metadataGuard(approval, 'go') } } }, go: {} },
  }),
  named: setup({ guards: { approved: metadataGuard(approval, 'go') } }).createMachine({
    initial: 'held',
    states: { held: { on: { APPROVE: { target: 'go', guard: 'approved' } } }, go: {} },
  }),
  typed: setup({ guards: { approved: metadataGuard(approval, 'go') } }).createMachine({
    initial: 'held',
    states: { held: { on: { APPROVE: { target: 'go', guard: { type: 'approved' } } } }, go: {} },
  }),
};

describe.each(Object.keys(machines) as Array<keyof typeof machines>)(
  'explainRejection with a %s metadata guard',
  (kind) => {
    const snapshot = createActor(machines[kind]).getSnapshot();

    it('names the missing and the wrong fields', () => {
      const error = explainRejection(snapshot, { type: 'APPROVE', ticket: 'T-1' } as never);
      expect(error).toBeInstanceOf(MetadataValidationError);
      expect((error as MetadataValidationError).missing).toEqual(['approver']);
      expect((error as MetadataValidationError).invalid.map((i) => i.field)).toEqual(['ticket']);
    });

    it('reports an event the state has no transition for as an invalid transition', () => {
      expect(explainRejection(snapshot, { type: 'REJECT' })).toBeInstanceOf(InvalidTransitionError);
    });
  },
);

it('names a plain named guard that refused the event', () => {
  const machine = setup({ guards: { never: () => false } }).createMachine({
    initial: 'a',
    states: { a: { on: { GO: { target: 'b', guard: 'never' } } }, b: {} },
  });
  const error = explainRejection(createActor(machine).getSnapshot(), { type: 'GO' });
  expect(error).toBeInstanceOf(InvalidTransitionError);
  expect(error.message).toContain('refused by its guard (never)');
});

describe('explainRejection with an explainedGuard', () => {
  class QuotaError extends Error {}
  const withinQuota = explainedGuard('withinQuota', ({ context, event, state }) =>
    context.used + event.amount > context.quota
      ? new QuotaError(`${event.amount} more would exceed the quota of ${context.quota} in '${state}'`)
      : undefined,
  );
  const machine = setup({
    types: { context: {} as { used: number; quota: number }, events: {} as { type: 'USE'; amount: number } },
    guards: { withinQuota },
  }).createMachine({
    context: { used: 8, quota: 10 },
    initial: 'open',
    states: { open: { on: { USE: { target: 'open', guard: and([() => true, 'withinQuota']) } } } },
  });
  const snapshot = createActor(machine).getSnapshot();

  it('passes when its check finds nothing, and otherwise gives the error the check names, with the state', () => {
    expect(snapshot.can({ type: 'USE', amount: 2 })).toBe(true);
    expect(snapshot.can({ type: 'USE', amount: 3 })).toBe(false);
    const error = explainRejection(snapshot, { type: 'USE', amount: 3 } as never);
    expect(error).toBeInstanceOf(QuotaError);
    expect(error.message).toBe("3 more would exceed the quota of 10 in 'open'");
  });
});
