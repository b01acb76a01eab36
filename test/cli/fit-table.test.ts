/** The tables `status` prints: fitted to a terminal's width, whole when piped. */
import { describe, expect, it } from 'vitest';
import { cutTo, tableLines, terminalWidth, type Column } from '../../src/cli/fit-table.js';

const columns: Column[] = [
  { header: 'RUN', cut: 'middle', min: 16 },
  { header: 'STATE', cut: 'middle', min: 12 },
  { header: 'STATUS', cut: 'never' },
  { header: 'NOTE', min: 20 },
];
const rows = [
  [
    'deploy-2026-12-05-frontend-canary-eu-west-1',
    'Active.Working.Checking.Running',
    'active',
    'waits for a person, to answer the question (answer)',
  ],
  ['j1', 'held', 'active', ''],
];

describe('a table fitted to the terminal', () => {
  it('is printed whole when piped, and within the width of a terminal, ids keeping both ends', () => {
    const whole = tableLines(columns, rows, Number.POSITIVE_INFINITY);
    expect(whole[1]).toBe(rows[0]!.join('  '));
    const fitted = tableLines(columns, rows, 80);
    expect(Math.max(...fitted.map((line) => line.length))).toBeLessThanOrEqual(80);
    expect(fitted[0]).toMatch(/^RUN\s+STATE\s+STATUS\s+NOTE$/);
    const cells = fitted[1]!.split(/\s{2,}/);
    expect(cells[0]).toMatch(/^deploy-2026.*….*west-1$/);
    expect(cells[2]).toBe('active');
    expect(cells[3]).toMatch(/^waits for a person.*…$/);
    expect(fitted[2]).toMatch(/^j1\s+held\s+active$/);
  });

  it('shrinks no column below its floor, and cuts as each column says', () => {
    const narrow = tableLines(columns, rows, 20);
    expect(narrow[1]!.split(/\s{2,}/).map((cell) => cell.length)).toEqual([16, 12, 6, 20]);
    expect(cutTo('abcdefghij', 5, 'middle')).toBe('ab…ij');
    expect(cutTo('abcdefghij', 5, 'end')).toBe('abcd…');
    expect(cutTo('abcdefghij', 5, 'never')).toBe('abcdefghij');
    expect(cutTo('abc', 5)).toBe('abc');
  });

  it("takes the terminal's columns, and none when stdout is not a terminal", () => {
    expect(terminalWidth({ isTTY: true, columns: 100 })).toBe(100);
    expect(terminalWidth({ isTTY: false, columns: 100 })).toBe(Number.POSITIVE_INFINITY);
    expect(terminalWidth({})).toBe(Number.POSITIVE_INFINITY);
  });
});
