/** The texts an agent's reports carry: whole when short, else their start and end around a note of the cut. */
import { describe, expect, it } from 'vitest';
import { boundedText } from '../../src/actors/bounded-text.js';

describe('boundedText', () => {
  it('keeps a text that fits as it is', () => {
    expect(boundedText('a'.repeat(100), 100)).toBe('a'.repeat(100));
  });

  it('keeps the start and the end of a longer one, saying how much was cut and where the whole is', () => {
    const text = `${'a'.repeat(600)}${'b'.repeat(400)}`;
    expect(boundedText(text, 100)).toBe(
      `${'a'.repeat(50)}\n[... 900 of 1000 characters cut here; the whole text is in the agent's log ...]\n${'b'.repeat(50)}`,
    );
  });

  it('never splits a character made of two UTF-16 units', () => {
    const text = '😀'.repeat(100);
    const bounded = boundedText(text, 11);
    expect(bounded).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    expect(bounded.startsWith('😀😀')).toBe(true);
    expect(bounded.endsWith('😀😀')).toBe(true);
  });
});
