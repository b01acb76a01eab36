import { describe, expect, it } from 'vitest';
import {
  detectSignals,
  findSignals,
  MAX_REASON_LENGTH,
  SignalConfigError,
  validateDoneSignal,
} from '../../src/review-loop/signals.js';

/** The deciding signal's kind, or 'none'. */
const decide = (output: string, doneSignal?: string) =>
  detectSignals(output, doneSignal === undefined ? {} : { doneSignal }).signal?.kind ?? 'none';
const reason = (output: string) => detectSignals(output).signal?.reason;

describe('signal detection', () => {
  it.each([
    ['PASS', 'pass'],
    ['FAIL', 'fail'],
    ['DONE', 'done'],
    ['pass', 'pass'],
    ['Pass', 'pass'],
    ['fail', 'fail'],
    ['done', 'done'],
    ['DoNe', 'done'],
    ['**PASS**', 'pass'],
    ['`PASS`', 'pass'],
    ['Verdict: PASS', 'pass'],
    ['**Verdict:** pass', 'pass'],
    ['Final verdict - fail', 'fail'],
    ['- [x] DONE', 'done'],
    ['## PASS', 'pass'],
    ['> FAIL: the migration drops a column', 'fail'],
    ['1. done', 'done'],
    ['All tasks finished.\n\nDONE', 'done'],
    ['The task is done.', 'done'],
    ['I implemented the parser and added tests. DONE', 'done'],
    ['Everything checks out, so PASS.', 'pass'],
    ['APPROVED', 'pass'],
    ['LGTM', 'pass'],
    ['lgtm, ship it', 'pass'],
    ['REJECTED: no tests', 'changes'],
    ['NEEDS CHANGES', 'changes'],
    ['This needs changes before it can merge', 'changes'],
    ['Verdict: changes requested', 'changes'],
  ])('finds the signal in %j', (output, kind) => {
    expect(decide(output)).toBe(kind);
  });

  it.each([
    // Substrings agentpair matched.
    'PASSWORD reset is implemented',
    'We BYPASS the cache here',
    'Added a COMPASS widget',
    'ABANDONED the old approach',
    'UNDONE changes were reverted',
    'The FAILURE mode is logged',
    'PASSED', // a different word: "passed" is prose, "tests passed" is a phrase
    'FAILED',
    'DONE_SIGNAL is read from the config',
    'PASSÉ styles were removed',
    // Glued into identifiers, paths, flags and compounds.
    'Wrote done.txt',
    'See src/done/index.ts',
    'Set $DONE in the environment',
    'Run it with --done to finish',
    'It is a pass-through adapter',
    'A fail-safe default',
    'Print PASS/FAIL at the end',
    "DONE's value is read once",
    'status=PASS is written by the test',
    'Ping @done for help',
  ])('finds no signal in %j', (output) => {
    expect(decide(output)).toBe('none');
  });

  it.each([
    // Ordinary words in the middle of a sentence.
    'We pass the flag to the parser and return early.',
    "I've done the refactor and will look at the tests next.",
    'If the token is missing, the request will fail loudly, which is the point of this change.',
    'Parsing may fail for empty input; I handled that.',
    // Negated, hedged and asked.
    'Not done yet: the migration is missing',
    'It is not DONE',
    "The task isn't done",
    'This did not pass review',
    "I can't say PASS yet",
    'This would FAIL without the fix',
    'The change needs to pass CI first',
    'DONE?',
    'Is it done?',
    'Should I mark this PASS?',
  ])('finds no signal in the prose %j', (output) => {
    expect(decide(output)).toBe('none');
  });

  it('ignores signals inside fenced code blocks, such as pasted test logs', () => {
    expect(decide('```\nFAIL src/a.test.ts\nPASS src/b.test.ts\n```\nI fixed a.test.ts.')).toBe('none');
    expect(decide('Ran the suite:\n~~~\nFAIL src/a.test.ts\n~~~\nAll fixed now.\nPASS')).toBe('pass');
    expect(decide('Output:\n```\nFAIL everything after an unclosed fence')).toBe('none');
  });

  it('keeps a clause boundary between a negation and the signal', () => {
    expect(decide('No blockers, PASS')).toBe('pass');
    expect(decide('Nothing is missing. DONE')).toBe('done');
    expect(decide("I wasn't sure at first - PASS")).toBe('pass');
  });

  it('lets the strongest signal decide, and the last of equals', () => {
    expect(decide('PASS on style.\nFAIL: the tests are broken')).toBe('fail');
    expect(decide('FAIL: first run broke.\nFixed it.\nPASS')).toBe('pass');
    // A verdict line beats a capitalised word in a sentence.
    expect(decide('Verdict: pass\nThe FAIL branch of the switch is covered too.')).toBe('pass');
    // Any explicit token beats a phrase.
    expect(decide('Looks good overall, but FAIL: the secret is logged')).toBe('fail');
    expect(decide('Tests fail on CI. PASS')).toBe('pass');
    // Between phrases, one asking for changes beats an approving one.
    expect(decide('Looks good, but the tests fail on Windows')).toBe('changes');
    expect(decide('The tests fail on Windows; otherwise it looks good')).toBe('changes');
  });

  it('reads phrases as implicit verdicts, and a phrase claims its words', () => {
    const looksGood = detectSignals('Looks good to me.');
    expect([looksGood.signal?.kind, looksGood.signal?.explicit, looksGood.pass]).toEqual(['pass', false, false]);
    expect(decide('All tests pass')).toBe('pass');
    expect(decide('All tests passed on Node 20')).toBe('pass');
    expect(decide('Well done')).toBe('pass'); // not DONE
    expect(decide('The tests fail')).toBe('changes'); // not FAIL
    expect(decide('Two tests failed')).toBe('changes');
    expect(decide('This needs more work')).toBe('changes');
    expect(decide("The retry doesn't work")).toBe('changes');
    expect(decide('Not all tests pass')).toBe('changes');
    expect(decide("It doesn't look good")).toBe('changes');
    expect(decide('No tests fail any more')).toBe('none');
    expect(decide('Do the tests fail?')).toBe('none');
  });

  it('matches a configured done token as a whole token, case-insensitively', () => {
    expect(decide('TASK_COMPLETE', 'TASK_COMPLETE')).toBe('done');
    expect(decide('TASK_COMPLETE_SOON', 'TASK_COMPLETE')).toBe('none');
    expect(decide('Complete.', 'COMPLETE')).toBe('done');
    expect(decide('The form is incomplete', 'COMPLETE')).toBe('none');
    expect(decide('DONE', 'COMPLETE')).toBe('none');
    expect(decide('Everything is in.\nALL   DONE', 'ALL DONE')).toBe('done');
    expect(decide('finished <done/>', '<done/>')).toBe('done');
    expect(decide('finished <done/>x', '<done/>')).toBe('done'); // edges that are not letters need no boundary
  });

  it.each(['', ' DONE', 'DONE ', '!!!', 'PASS', 'fail', 'two\nlines', 'x'.repeat(101)])(
    'refuses the done token %j',
    (token) => {
      expect(() => validateDoneSignal(token)).toThrow(SignalConfigError);
      expect(() => detectSignals('DONE', { doneSignal: token })).toThrow(SignalConfigError);
    },
  );

  it('extracts the reason: the rest of the sentence, else the next line, else what came before', () => {
    expect(reason('PASS: all 42 tests pass')).toBe('all 42 tests pass');
    expect(reason('FAIL - the migration drops the users table. Everything else is fine.')).toBe(
      'the migration drops the users table',
    );
    expect(reason('PASS: fixed the bug in src/foo.ts. Good work.')).toBe('fixed the bug in src/foo.ts');
    expect(reason('**FAIL**: secrets are logged')).toBe('secrets are logged');
    expect(reason('FAIL\n\n- The retry loop never ends.\n- Also X.')).toBe('The retry loop never ends');
    expect(reason('The parser handles every case, so: PASS')).toBe('The parser handles every case, so');
    expect(reason('Verdict: PASS')).toBe('');
    const long = reason(`FAIL: ${'x'.repeat(300)}`)!;
    expect(long).toHaveLength(MAX_REASON_LENGTH + 1);
    expect(long.endsWith('…')).toBe(true);
  });

  it('reports every asserted signal with its line, and which kinds were said explicitly', () => {
    const result = detectSignals('Work log\nDONE with the parser\nReview: PASS\nLooks good.');
    expect(result.signals.map((s) => [s.kind, s.line, s.text, s.explicit])).toEqual([
      ['done', 2, 'DONE', true],
      ['pass', 3, 'PASS', true],
      ['pass', 4, 'Looks good', false],
    ]);
    expect([result.done, result.pass, result.fail, result.signal?.text]).toEqual([true, true, false, 'PASS']);
  });

  it('finds nothing in empty or signal-free output', () => {
    expect(findSignals('')).toEqual([]);
    expect(detectSignals('I changed three files.')).toMatchObject({
      done: false,
      pass: false,
      fail: false,
      signal: undefined,
    });
  });
});
