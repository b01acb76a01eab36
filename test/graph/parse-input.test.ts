import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MetadataValidationError, parseInput } from '../../src/graph/index.js';

const schema = z.object({ name: z.string().min(1), retries: z.number().int().default(3), note: z.string().optional() });

const refusal = (input: unknown) => {
  try {
    parseInput(schema, input, 'Job', 'starting');
  } catch (error) {
    return error as MetadataValidationError;
  }
  throw new Error('expected parseInput to refuse the input');
};

describe('parseInput', () => {
  it('returns the parsed input, defaults filled in', () => {
    expect(parseInput(schema, { name: 'a' }, 'Job', 'starting')).toEqual({ name: 'a', retries: 3 });
  });

  it('names every missing and every wrong field, and what to do', () => {
    const error = refusal({ retries: 1.5 });
    expect(error).toBeInstanceOf(MetadataValidationError);
    expect([error.target, error.missing, error.invalid.map((i) => i.field)]).toEqual([
      'starting',
      ['name'],
      ['retries'],
    ]);
    expect(error.message).toMatch(
      /^Job input is not valid: missing name; retries: .+\. Start the job again with these fields set\.$/,
    );
  });

  it('names every required field when there is no input, or it is not an object', () => {
    expect(refusal(undefined).message).toBe(
      'Job input is not valid: missing name. Start the job again with these fields set.',
    );
    expect(refusal(undefined).missing).toEqual(['name']);
    expect(refusal(5).message).toBe(
      'Job input is not valid: input must be an object, got 5; missing name. Start the job again with these fields set.',
    );
    expect(refusal(['x']).missing).toEqual(['name']);
  });
});
