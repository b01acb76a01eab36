/**
 * Every duration a machine's input or config accepts is bounded so its deadline is a date
 * (`duration()` in machines/duration.ts): more is refused with a MetadataValidationError that names
 * the field and the bound, before anything is stored.
 */
import { describe, expect, it } from 'vitest';
import { agentInputSchema } from '../../machines/agent-input.js';
import { lifecycles, MAX_DURATION_MS, parseCodonInput, parseSessionInput } from '../../machines/index.js';
import { MetadataValidationError } from '../../src/graph/index.js';
import { createRuntime, MachineError, ManualClock } from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';

const DAY = 24 * 60 * 60 * 1000;
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a refusal');
};

describe('durations in schemas', () => {
  it("refuse a task lease's time to live past the bound, and store nothing", async () => {
    const store = memoryStore();
    const rt = await createRuntime({ store, machines: lifecycles, clock: new ManualClock() });
    const error = await rt.start('task', { id: 'absurd', input: { lease: { ttlMs: 9e15 } } }).catch((e: Error) => e);
    // The machine validates its input as it starts: the runtime says the run could not start, and why.
    expect(error).toBeInstanceOf(MachineError);
    expect((error as Error).message).toMatch(/could not start: .*lease\.ttlMs: must be at most/);
    const cause = (error as MachineError).cause;
    expect(cause).toBeInstanceOf(MetadataValidationError);
    expect((cause as MetadataValidationError).invalid).toEqual([
      { field: 'lease.ttlMs', problem: expect.stringContaining(`must be at most ${MAX_DURATION_MS} ms (100 years)`) },
    ]);
    expect(await store.load('absurd')).toBeUndefined();
    // 40 days is a lease like any other.
    expect((await rt.start('task', { id: 'long', input: { lease: { ttlMs: 40 * DAY } } })).context.leaseTtlMs).toBe(
      40 * DAY,
    );
    await rt.close();
  });

  it("refuse a session's start and approval timeouts past the bound", () => {
    const base = { query: 'hi', created_at: 0, log_path: '/tmp/x.jsonl' };
    for (const field of ['start_timeout_ms', 'approval_timeout_ms']) {
      const error = refusal(() => parseSessionInput({ ...base, config: { [field]: 1e16 } }));
      expect(error).toBeInstanceOf(MetadataValidationError);
      expect(error.message).toContain(`config.${field}: must be at most ${MAX_DURATION_MS} ms`);
      expect(parseSessionInput({ ...base, config: { [field]: 40 * DAY } }).config).toEqual({ [field]: 40 * DAY });
    }
  });

  it("refuse a codon's drain timeout and an agent's grace past the bound, and fractions of a ms", () => {
    const codon = {
      runId: 'r',
      codonId: 'c',
      startedAt: 0,
      workTree: '/tmp',
      agent: { command: ['claude'], logPath: '/tmp/a.jsonl' },
    };
    expect(refusal(() => parseCodonInput({ ...codon, drainTimeoutMs: MAX_DURATION_MS + 1 })).message).toContain(
      'drainTimeoutMs: must be at most',
    );
    expect(refusal(() => parseCodonInput({ ...codon, drainTimeoutMs: 1.5 })).message).toContain(
      'drainTimeoutMs: must be a whole number of milliseconds',
    );
    expect(parseCodonInput({ ...codon, drainTimeoutMs: MAX_DURATION_MS }).drainTimeoutMs).toBe(MAX_DURATION_MS);
    expect(agentInputSchema.safeParse({ command: ['a'], logPath: 'l', graceMs: 1e16 }).success).toBe(false);
    expect(agentInputSchema.safeParse({ command: ['a'], logPath: 'l', graceMs: 0 }).success).toBe(true);
  });
});
