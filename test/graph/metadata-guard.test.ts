import { describe, expect, it } from 'vitest';
import { assign, createActor, setup } from 'xstate';
import { z } from 'zod';
import {
  explainRejection,
  InvalidTransitionError,
  metadataGuard,
  MetadataValidationError,
} from '../../src/graph/index.js';

/** A tiny machine whose guards check the payload, and once the payload against the context. */
const seats = setup({
  types: {
    context: {} as { free: string[] },
    events: {} as { type: 'BOOK'; seat?: unknown } | { type: 'OPEN'; by?: unknown },
  },
}).createMachine({
  id: 'seats',
  context: { free: ['1A', '1B'] },
  initial: 'open',
  states: {
    open: {
      on: {
        BOOK: {
          guard: metadataGuard(
            z
              .object({ seat: z.string(), free: z.array(z.string()) })
              .refine((v) => v.free.includes(v.seat), { path: ['seat'], message: 'is not free' }),
            'open',
            (event, context) => ({ ...event, free: context.free }),
          ),
          actions: assign({ free: ({ context, event }) => context.free.filter((s) => s !== event.seat) }),
        },
        OPEN: { guard: metadataGuard(z.object({ by: z.string() }), 'closed'), target: 'closed' },
      },
    },
    closed: {},
  },
});

describe('metadata guards', () => {
  it('check the event alone by default, and name the missing field', () => {
    const snapshot = createActor(seats).getSnapshot();
    expect(snapshot.can({ type: 'OPEN', by: 'ops' })).toBe(true);
    const error = explainRejection(snapshot, { type: 'OPEN' });
    expect(error).toBeInstanceOf(MetadataValidationError);
    expect(error).toMatchObject({ target: 'closed', missing: ['by'], invalid: [] });
  });

  it('may check the event against the context, and explain a refusal with it', () => {
    const actor = createActor(seats).start();
    actor.send({ type: 'BOOK', seat: '1A' });
    expect(actor.getSnapshot().context.free).toEqual(['1B']);
    const again = { type: 'BOOK' as const, seat: '1A' };
    expect(actor.getSnapshot().can(again)).toBe(false);
    expect(explainRejection(actor.getSnapshot(), again)).toMatchObject({
      missing: [],
      invalid: [{ field: 'seat', problem: 'is not free' }],
    });
  });

  it('leave events without a transition to InvalidTransitionError', () => {
    const actor = createActor(seats).start();
    actor.send({ type: 'OPEN', by: 'ops' });
    const book = { type: 'BOOK', seat: '1B' };
    expect(explainRejection(actor.getSnapshot(), book)).toBeInstanceOf(InvalidTransitionError);
  });
});
