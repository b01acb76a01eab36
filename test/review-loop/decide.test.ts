import { describe, expect, it } from 'vitest';
import { afterPrimary, afterReview, agentFailure, type AgentReport } from '../../src/review-loop/decide.js';
import {
  LoopConfigError,
  machineInput,
  resolveLoopSettings,
  type LoopSettingsInput,
} from '../../src/review-loop/settings.js';

const ok = (text: string): AgentReport => ({ result: { text, isError: false }, exit: { code: 0, signal: null } });
const settings = (overrides: Partial<LoopSettingsInput> = {}) =>
  resolveLoopSettings({
    prompt: 'fix the bug',
    primary: { command: ['primary.sh'] },
    reviewer: { command: ['reviewer.sh'] },
    ...overrides,
  });
const single = resolveLoopSettings({ prompt: 'fix the bug', primary: { command: ['primary.sh'] } });

describe('loop settings', () => {
  it("fills in agentpair's defaults", () => {
    const s = settings();
    expect(s).toMatchObject({
      maxIterations: 20,
      reviewMode: 'claudex',
      doneSignal: 'DONE',
      primary: { name: 'codex' },
      reviewer: { name: 'claude' },
    });
    expect(machineInput(s)).toEqual({ maxIterations: 20, mode: 'paired' });
    expect(machineInput(single)).toEqual({ maxIterations: 20, mode: 'single' });
    expect(settings({ primary: { name: 'claude', command: ['c'] } }).reviewer?.name).toBe('codex');
    expect(settings({ reviewer: { name: 'codex', command: ['r'] } }).primary.name).toBe('claude');
  });

  it.each([
    [{ maxIterations: 0 }, 'maxIterations'],
    [{ reviewMode: 'both' }, 'reviewMode'],
    [{ doneSignal: 'PASS' }, 'doneSignal'],
    [{ doneSignal: '' }, 'doneSignal'],
    [{ primary: { command: [] } }, 'primary.command'],
    [{ prompt: '' }, 'prompt'],
    [{ reviewer: { name: 'codex', command: ['r'] }, primary: { name: 'codex', command: ['p'] } }, 'reviewer.name'],
    [{ retries: 3 }, '(settings)'],
  ])('refuses %j naming %s', (overrides, field) => {
    try {
      settings(overrides as Partial<LoopSettingsInput>);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(LoopConfigError);
      expect((error as LoopConfigError).problems.map((p) => p.field)).toContain(field);
      expect((error as Error).message).toContain(field);
    }
  });
});

describe('an agent run that is an agent error', () => {
  it.each([
    [
      { exit: { code: 127, signal: null, reason: 'spawn failed: ENOENT' } },
      'primary exited with code 127 before reporting a result (spawn failed: ENOENT)',
    ],
    [{ exit: { code: null, signal: 'SIGKILL' } }, 'primary was killed by SIGKILL before reporting a result'],
    [
      { result: { text: 'rate limited', isError: true }, exit: { code: 0, signal: null } },
      'primary reported an error: rate limited',
    ],
    [
      { result: { text: 'DONE', isError: false }, exit: { code: 2, signal: null } },
      'primary exited with code 2 after reporting its result',
    ],
  ] as Array<[AgentReport, string]>)('%j', (report, message) => {
    expect(agentFailure('primary', report)).toBe(message);
    expect(afterPrimary(settings(), report)).toEqual({ type: 'AGENT_ERROR', error: message });
  });

  it('is not a clean exit with a result', () => {
    expect(agentFailure('reviewer', ok('PASS'))).toBeUndefined();
  });

  it('is not a complete result from a process whose exit status is unknown (it ended while no runner watched)', () => {
    const gone: AgentReport = {
      result: { text: 'PASS', isError: false },
      exit: { code: null, signal: null, reason: 'process gone before restart' },
    };
    expect(agentFailure('reviewer', gone)).toBeUndefined();
    expect(agentFailure('reviewer', { exit: gone.exit })).toBe(
      'reviewer exited with code null before reporting a result (process gone before restart)',
    );
  });
});

describe('after the primary', () => {
  it('completes on DONE, with its reason', () => {
    expect(afterPrimary(settings({ reviewMode: 'claude' }), ok('Implemented it.\nDONE: parser and tests'))).toEqual({
      type: 'DONE',
      reason: 'parser and tests',
    });
    expect(afterPrimary(single, ok('done'))).toEqual({ type: 'DONE' });
  });

  it('uses the configured done token only', () => {
    const custom = settings({ reviewMode: 'codex', doneSignal: 'SHIPPED' });
    expect(afterPrimary(custom, ok('SHIPPED')).type).toBe('DONE');
    expect(afterPrimary(custom, ok('DONE')).type).toBe('PRIMARY_FINISHED');
  });

  it('sends a DONE to review in claudex mode, where both agents must agree', () => {
    expect(afterPrimary(settings(), ok('DONE'))).toEqual({ type: 'PRIMARY_FINISHED', verdict: 'pass' });
  });

  it('fails on FAIL', () => {
    expect(afterPrimary(settings(), ok('FAIL: the repository has no tests to run'))).toEqual({
      type: 'FAIL',
      reason: 'the repository has no tests to run',
    });
    expect(afterPrimary(single, ok('FAIL'))).toEqual({ type: 'FAIL' });
  });

  it('moves on to review with its own verdict when it did not finish', () => {
    expect(afterPrimary(settings(), ok('I added the parser; tests next.'))).toEqual({
      type: 'PRIMARY_FINISHED',
      verdict: 'none',
    });
    expect(afterPrimary(settings(), ok('Tests fail on Windows still'))).toMatchObject({
      type: 'PRIMARY_FINISHED',
      verdict: 'changes',
    });
    expect(afterPrimary(settings({ reviewMode: 'claude' }), ok('PASS'))).toEqual({
      type: 'PRIMARY_FINISHED',
      verdict: 'pass',
    });
  });

  it('alone, completes on PASS and otherwise starts the next iteration', () => {
    expect(afterPrimary(single, ok('PASS: verified'))).toEqual({ type: 'DONE', reason: 'verified' });
    expect(afterPrimary(single, ok('Working on it'))).toEqual({ type: 'PRIMARY_FINISHED', verdict: 'none' });
  });

  it('is not fooled by substrings', () => {
    expect(afterPrimary(single, ok('Reset the PASSWORD hash; ABANDONED the old FAILOVER code')).type).toBe(
      'PRIMARY_FINISHED',
    );
  });
});

describe('after the review', () => {
  it("passes or fails on the reviewer's verdict when the reviewer's agent decides", () => {
    const claude = settings({ reviewMode: 'claude' }); // reviewer is claude
    expect(afterReview(claude, 'none', ok('PASS: tidy'))).toEqual({ type: 'PASS', reason: 'tidy' });
    expect(afterReview(claude, 'none', ok('FAIL: deletes user data'))).toEqual({
      type: 'FAIL',
      reason: 'deletes user data',
    });
    expect(afterReview(claude, 'pass', ok('NEEDS CHANGES: add a test'))).toEqual({
      type: 'CHANGES_REQUESTED',
      reason: 'add a test',
    });
    expect(afterReview(claude, 'pass', ok('Read it all.'))).toEqual({
      type: 'CHANGES_REQUESTED',
      reason: 'Waiting for Claude to approve',
    });
  });

  it("follows the primary's own verdict when the primary's agent decides", () => {
    const codex = settings({ reviewMode: 'codex' }); // primary is codex
    expect(afterReview(codex, 'pass', ok('FAIL')).type).toBe('PASS');
    expect(afterReview(codex, 'none', ok('PASS')).type).toBe('CHANGES_REQUESTED');
  });

  it('needs both agents to pass in claudex mode', () => {
    const claudex = settings();
    expect(afterReview(claudex, 'pass', ok('PASS'))).toEqual({ type: 'PASS', reason: 'Both agents approved' });
    expect(afterReview(claudex, 'none', ok('PASS')).type).toBe('CHANGES_REQUESTED');
    expect(afterReview(claudex, 'pass', ok('Looks good. But the tests fail on Windows.'))).toEqual({
      type: 'CHANGES_REQUESTED',
      reason: 'But the tests fail on Windows',
    });
    expect(afterReview(claudex, 'pass', ok('FAIL: unsafe'))).toEqual({
      type: 'FAIL',
      reason: 'Claude: FAIL (unsafe); Codex: PASS',
    });
  });

  it('reports a reviewer that crashed as an agent error', () => {
    expect(afterReview(settings(), 'pass', { exit: { code: 1, signal: null } })).toEqual({
      type: 'AGENT_ERROR',
      error: 'reviewer exited with code 1 before reporting a result',
    });
  });

  it('refuses to review a single-agent loop', () => {
    expect(() => afterReview(single, 'pass', ok('PASS'))).toThrow(/single-agent/);
  });
});
