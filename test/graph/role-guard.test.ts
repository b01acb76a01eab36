import { describe, expect, it } from 'vitest';
import { and, createMachine, not, or, setup, type AnyMachineSnapshot, type EventObject } from 'xstate';
import { z } from 'zod';
import {
  explainRejection as explainAny,
  InvalidTransitionError,
  MetadataValidationError,
  metadataGuard,
  RoleError,
  roleGuard,
  transitionTable,
} from '../../src/graph/index.js';

const reviewer = roleGuard(['reviewer', 'owner']);
const machine = setup({
  guards: {
    reviewer,
    notes: metadataGuard(z.object({ notes: z.string() }), 'done'),
    open: ({ context }: { context: { open: boolean } }) => context.open,
  },
}).createMachine({
  id: 'doc',
  context: { open: true },
  initial: 'draft',
  states: {
    draft: {
      on: {
        APPROVE: { guard: 'reviewer', target: 'done' },
        REJECT: { guard: and(['reviewer', 'notes', 'open']), target: 'done' },
        EITHER: { guard: or(['reviewer', 'notes']), target: 'done' },
        NEVER: { guard: not('reviewer'), target: 'done' },
      },
    },
    done: { type: 'final' },
  },
});
/** Events here carry fields beyond `type`, which EventObject does not declare. */
const explainRejection = (snapshot: AnyMachineSnapshot, event: { type: string; [field: string]: unknown }) =>
  explainAny(snapshot, event as EventObject);
const draft = () => machine.resolveState({ value: 'draft', context: { open: true } });

describe('roleGuard', () => {
  it('admits only its roles', () => {
    expect(draft().can({ type: 'APPROVE', role: 'owner' } as never)).toBe(true);
    expect(draft().can({ type: 'APPROVE', role: 'author' } as never)).toBe(false);
    expect(draft().can({ type: 'APPROVE' } as never)).toBe(false);
  });

  it('explains a refusal as a RoleError naming the role, the action and who may', () => {
    const error = explainRejection(draft(), { type: 'APPROVE', role: 'author' });
    expect(error).toBeInstanceOf(RoleError);
    expect(error).toBeInstanceOf(InvalidTransitionError);
    expect(error).toMatchObject({
      name: 'RoleError',
      state: 'draft',
      event: 'APPROVE',
      role: 'author',
      allowed: ['reviewer', 'owner'],
    });
    expect(error.message).toBe(
      "Role 'author' may not APPROVE (in state 'draft'): only 'reviewer' or 'owner' may APPROVE.",
    );
    expect(explainRejection(draft(), { type: 'APPROVE' }).message).toBe(
      "Role missing: 'APPROVE' has no role naming who sends it (in state 'draft'). Only 'reviewer' or 'owner' may APPROVE.",
    );
  });

  it('is found inside and(), by name, before a metadata guard that also fails', () => {
    expect(explainRejection(draft(), { type: 'REJECT', role: 'author' })).toBeInstanceOf(RoleError);
    const missing = explainRejection(draft(), { type: 'REJECT', role: 'owner' });
    expect(missing).toBeInstanceOf(MetadataValidationError);
    expect(missing).toMatchObject({ missing: ['notes'] });
  });

  it('leaves a refusal by a plain guard, or by or()/not(), to the generic message', () => {
    const closed = machine.resolveState({ value: 'draft', context: { open: false } });
    const error = explainRejection(closed, { type: 'REJECT', role: 'owner', notes: 'x' });
    expect(error).not.toBeInstanceOf(RoleError);
    expect(error.message).toContain('was refused by its guard');
    expect(explainRejection(draft(), { type: 'EITHER', role: 'author' })).not.toBeInstanceOf(RoleError);
    expect(explainRejection(draft(), { type: 'NEVER', role: 'owner' })).not.toBeInstanceOf(RoleError);
  });

  it('names guards by their roles and parts in the one-step table', () => {
    expect(transitionTable(machine).map((r) => r.guard)).toEqual([
      'reviewer',
      'reviewer & notes & open',
      'reviewer | notes',
      '!reviewer',
    ]);
    const inline = createMachine({
      initial: 'a',
      states: { a: { on: { GO: { guard: roleGuard(['x', 'y']), target: 'b' } } }, b: {} },
    });
    expect(transitionTable(inline)[0]!.guard).toBe('x|y');
  });

  it('reads the role where the machine says, and says what is wrong with it', () => {
    const byAgent = roleGuard(['boss'], {
      roleOf: (e) => /^(\w+):/.exec(e.agent ?? '')?.[1],
      field: 'agent',
      format: 'role:name',
    });
    const m = createMachine({ initial: 'a', states: { a: { on: { GO: { guard: byAgent, target: 'b' } } }, b: {} } });
    const a = m.resolveState({ value: 'a' });
    expect(a.can({ type: 'GO', agent: 'boss:ann' } as never)).toBe(true);
    expect(explainRejection(a, { type: 'GO', agent: 'ann' }).message).toBe(
      "Role missing: 'GO' has agent \"ann\", which is not role:name (in state 'a'). Only 'boss' may GO.",
    );
    expect(() => roleGuard([])).toThrow(/at least one/);
  });
});
