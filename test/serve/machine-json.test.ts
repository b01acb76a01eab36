/**
 * What GET /api/machines tells the live view about a person's events (src/serve/machine-json.ts):
 * which events are buttons (`personEvents`) and which end or cancel a run from each state
 * (`endingEvents`), derived from the lifecycle and its transition table; and how the view reads a
 * run's outcome and the times in its payloads (ui/src/format.ts).
 */
import { createMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { machineJson } from '../../src/serve/machine-json.js';
import { json, outcome } from '../../ui/src/format.js';

describe('the events a person sends', () => {
  it('are the lifecycle’s personEvents, or every event but the internal ones, with its waitsFor decisions', () => {
    expect(machineJson('session', lifecycles.session).personEvents).toEqual(['INTERRUPT', 'APPROVAL_RESOLVED']);
    expect(machineJson('codon', lifecycles.codon).personEvents).toEqual(['codon.skip', 'codon.stop']);
    const machine = createMachine({
      initial: 'draft',
      states: {
        draft: { on: { SUBMIT: 'review', 'agent.note': 'draft' } },
        review: { on: { APPROVE: 'published', REJECT: 'draft', CANCEL: 'review' } },
        published: { type: 'final' },
      },
    });
    const article = { machine, version: 1, summary: 'an article' };
    expect(machineJson('article', article).personEvents).toEqual(['SUBMIT', 'APPROVE', 'REJECT', 'CANCEL']);
    const declared = {
      ...article,
      personEvents: ['SUBMIT'],
      waitsFor: { review: { summary: 'an editor', approve: { type: 'APPROVE' }, deny: { type: 'REJECT' } } },
    };
    expect(machineJson('article', declared).personEvents).toEqual(['SUBMIT', 'APPROVE', 'REJECT']);
    // APPROVE leads to a final state, but one that is an outcome (done), not a failure: only CANCEL,
    // whose name says it cancels, asks first.
    expect(machineJson('article', article).endingEvents).toEqual({ review: ['CANCEL'] });
  });

  it('says how each final state ends a run: the lifecycle’s outcomes, else read from its name', () => {
    const machine = createMachine({
      initial: 'review',
      states: {
        review: { on: { APPROVE: 'approved', REJECT: 'rejected', WITHDRAW: 'withdrawn' } },
        approved: { type: 'final' },
        rejected: { type: 'final' },
        withdrawn: { type: 'final' },
      },
    });
    const expense = { machine, version: 1, summary: 'an expense' };
    // By name: `rejected` reads as a failure, so REJECT asks first; APPROVE never does.
    expect(machineJson('expense', expense).outcomes).toEqual({
      approved: 'done',
      rejected: 'failed',
      withdrawn: 'done',
    });
    expect(machineJson('expense', expense).endingEvents).toEqual({ review: ['REJECT'] });
    // Declared: a rejected expense is an outcome, a withdrawn one a cancellation.
    const declared = { ...expense, outcomes: { rejected: 'done', withdrawn: 'cancelled' } as const };
    expect(machineJson('expense', declared).outcomes).toEqual({
      approved: 'done',
      rejected: 'done',
      withdrawn: 'cancelled',
    });
    expect(machineJson('expense', declared).endingEvents).toEqual({ review: ['WITHDRAW'] });
    // The view reads a finished run by them.
    expect(outcome('done', 'rejected')).toEqual({ label: 'failed', tone: 'bad' });
    expect(outcome('done', 'rejected', machineJson('expense', declared).outcomes)).toEqual({
      label: 'done',
      tone: 'good',
    });
  });

  it('ends an execution from a state when every transition of it leads to a final state not done, or its name cancels', () => {
    const { endingEvents } = machineJson('execution', lifecycles.execution);
    // SUCCEED ends the run in `success`: an outcome, sent without a warning.
    expect(endingEvents.running).toEqual(['FAIL', 'CANCEL', 'CANCEL_GRACEFUL']);
    expect(endingEvents.held).toEqual(['REJECT', 'EXPIRE', 'CANCEL']);
    expect(endingEvents.queued).not.toContain('START');
  });
});

describe('how the view reads a run', () => {
  it('reads a run done in a failed or cancelled state as such, not as done', () => {
    expect(outcome('done', 'success')).toEqual({ label: 'done', tone: 'good' });
    expect(outcome('done', 'failed')).toEqual({ label: 'failed', tone: 'bad' });
    expect(outcome('done', 'cancelled')).toEqual({ label: 'cancelled', tone: 'bad' });
    expect(outcome('done', 'crashed')).toEqual({ label: 'failed', tone: 'bad' });
    expect(outcome('done', 'skipped')).toEqual({ label: 'skipped', tone: 'neutral' });
    expect(outcome('error', 'running')).toEqual({ label: 'error', tone: 'bad' });
    expect(outcome('active', 'failed_once')).toEqual({ label: 'active', tone: 'ongoing' });
  });

  it('shows the epoch milliseconds of fields named as times as times, and nothing else', () => {
    const at = Date.UTC(2026, 10, 28, 10, 0);
    const shown = JSON.parse(json({ created_at: at, startedAt: at, at, count: at, tokens: 900, dueAt: 'soon' }));
    const local = new Date(at).toLocaleString();
    expect(shown).toEqual({ created_at: local, startedAt: local, at: local, count: at, tokens: 900, dueAt: 'soon' });
  });
});
