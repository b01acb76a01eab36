import { describe, expect, it } from 'vitest';
import { consensus, ReviewModeError, type ReviewMode } from '../../src/review-loop/consensus.js';
import { parseReview } from '../../src/review-loop/review.js';

describe('parseReview', () => {
  it.each([
    ['PASS: clean', 'pass', true, 'clean'],
    ['LGTM', 'pass', true, ''],
    ['DONE: implemented', 'pass', true, 'implemented'],
    ['Looks good to me', 'pass', false, 'Looks good to me'],
    ['FAIL: leaks the token', 'fail', true, 'leaks the token'],
    ['REJECTED: no tests', 'changes', true, 'no tests'],
    ['NEEDS CHANGES\nAdd a test for the empty list.', 'changes', true, 'Add a test for the empty list'],
    ['I ran them. The tests fail on CI. Fix that.', 'changes', false, 'The tests fail on CI'],
    ['I read the diff.', 'none', false, ''],
  ])('reads %j as %s', (output, verdict, explicit, reason) => {
    expect(parseReview(output)).toMatchObject({ verdict, explicit, reason });
  });

  it('uses the configured done token', () => {
    expect(parseReview('COMPLETE', { doneSignal: 'COMPLETE' }).verdict).toBe('pass');
    expect(parseReview('DONE', { doneSignal: 'COMPLETE' }).verdict).toBe('none');
  });
});

describe('consensus', () => {
  const pass = { verdict: 'pass' as const, reason: 'ok' };
  const fail = { verdict: 'fail' as const, reason: 'broken' };
  const changes = { verdict: 'changes' as const, reason: 'add tests' };

  it("takes Claude's verdict as final in claude mode and Codex's in codex mode", () => {
    expect(consensus('claude', { claude: pass, codex: fail })).toEqual({
      outcome: 'pass',
      unanimous: true,
      reason: 'ok',
    });
    expect(consensus('claude', { claude: fail, codex: pass }).outcome).toBe('fail');
    expect(consensus('claude', { claude: changes, codex: pass })).toEqual({
      outcome: 'pending',
      unanimous: true,
      reason: 'add tests',
    });
    expect(consensus('claude', { codex: pass })).toEqual({
      outcome: 'pending',
      unanimous: true,
      reason: 'Waiting for Claude to approve',
    });
    expect(consensus('codex', { claude: fail, codex: pass }).outcome).toBe('pass');
    expect(consensus('codex', { claude: pass, codex: fail }).outcome).toBe('fail');
  });

  it('needs both to pass in claudex mode, and fails on any FAIL', () => {
    expect(consensus('claudex', { claude: pass, codex: pass })).toEqual({
      outcome: 'pass',
      unanimous: true,
      reason: 'Both agents approved',
    });
    expect(consensus('claudex', { claude: fail, codex: pass })).toEqual({
      outcome: 'fail',
      unanimous: false,
      reason: 'Claude: FAIL (broken); Codex: PASS (ok)',
    });
    expect(consensus('claudex', { claude: pass, codex: fail }).outcome).toBe('fail');
    expect(consensus('claudex', { claude: fail, codex: fail })).toMatchObject({ outcome: 'fail', unanimous: true });
    expect(consensus('claudex', { claude: pass })).toEqual({
      outcome: 'pending',
      unanimous: false,
      reason: 'Waiting for both agents to provide review',
    });
    expect(consensus('claudex', { claude: pass, codex: changes }).outcome).toBe('pending');
    expect(consensus('claudex', { claude: { verdict: 'none' }, codex: { verdict: 'none' } })).toMatchObject({
      outcome: 'pending',
      unanimous: true,
    });
  });

  it('refuses an unknown mode instead of doing nothing', () => {
    expect(() => consensus('both' as ReviewMode, { claude: pass })).toThrow(ReviewModeError);
    expect(() => consensus('both' as ReviewMode, { claude: pass })).toThrow(/claude, codex, claudex/);
  });
});
