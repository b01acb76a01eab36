import { describe, expect, it } from 'vitest';
import { createActor, setup } from 'xstate';
import { z } from 'zod';
import {
  InvalidTransitionError,
  MetadataValidationError,
  explainRejection,
  metadataGuard,
  transitionTable,
} from '../../src/graph/index.js';

type Move = { type: 'MOVE'; from: string; to: string; meta?: unknown };
type Bump = { type: 'BUMP'; by: number };

const edge = (source: string) => ({ source, read: (event: Move) => ({ from: event.from, to: event.to }) });

/** A toy machine whose MOVE event names its edge, as the codon's CodonTransitioned does. */
const toy = setup({ types: { context: {} as { limit: number }, events: {} as Move | Bump } }).createMachine({
  id: 'toy',
  context: { limit: 3 },
  initial: 'a',
  states: {
    a: {
      on: {
        MOVE: [
          {
            target: 'b',
            guard: metadataGuard(z.object({ n: z.number() }), 'b', (e: Move) => e.meta, { namedEdge: edge('a') }),
          },
          {
            target: 'c',
            guard: metadataGuard(z.unknown(), 'c', (e: Move) => e.meta, { namedEdge: edge('a'), name: 'anything' }),
          },
        ],
        BUMP: {
          target: 'c',
          guard: metadataGuard(z.object({ by: z.number().max(3) }), 'c', (e: Bump, context: { limit: number }) => ({
            by: e.by - context.limit + 3,
          })),
        },
      },
    },
    b: {},
    c: {},
  },
});

describe('metadata guards for events that name their edge', () => {
  const snapshot = () => createActor(toy).getSnapshot();

  it('take the edge the event names, when its metadata passes', () => {
    const actor = createActor(toy).start();
    actor.send({ type: 'MOVE', from: 'a', to: 'c' });
    expect(actor.getSnapshot().value).toBe('c');
    const other = createActor(toy).start();
    other.send({ type: 'MOVE', from: 'a', to: 'b', meta: { n: 1 } });
    expect(other.getSnapshot().value).toBe('b');
  });

  it('explain an edge the state does not have, and a wrong source, as invalid transitions', () => {
    const missingEdge = explainRejection(snapshot(), { type: 'MOVE', from: 'a', to: 'a' } as Move);
    expect(missingEdge).toBeInstanceOf(InvalidTransitionError);
    expect(missingEdge.message).toBe('Invalid transition from a to a');
    const wrongSource = explainRejection(snapshot(), { type: 'MOVE', from: 'b', to: 'c' } as Move);
    expect(wrongSource.message).toBe("Invalid transition from a to c: the event says it leaves 'b'");
  });

  it("explain the named edge's metadata, not another edge's", () => {
    const error = explainRejection(snapshot(), { type: 'MOVE', from: 'a', to: 'b', meta: {} } as Move);
    expect(error).toBeInstanceOf(MetadataValidationError);
    expect(error).toMatchObject({ target: 'b', missing: ['n'] });
  });

  it('see the context when selecting metadata', () => {
    expect(snapshot().can({ type: 'BUMP', by: 3 })).toBe(true);
    expect(snapshot().can({ type: 'BUMP', by: 4 })).toBe(false);
    expect(explainRejection(snapshot(), { type: 'BUMP', by: 4 } as Bump)).toMatchObject({
      target: 'c',
      invalid: [{ field: 'by' }],
    });
  });

  it('are named in tables by target unless given a name', () => {
    expect(transitionTable(toy).map((r) => r.guard)).toEqual(['b metadata', 'anything', 'c metadata']);
  });
});
