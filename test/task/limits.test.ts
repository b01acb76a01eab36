import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { taskMachine } from '../../machines/task/index.js';
import { DEFAULT_TASK_SETTINGS, parseTaskSettings, readTaskSettings, TaskConfigError } from '../../src/task/limits.js';

const FILE = 'ferrus.toml';

function refusal(text: string): TaskConfigError {
  try {
    parseTaskSettings(text, FILE);
  } catch (error) {
    expect(error).toBeInstanceOf(TaskConfigError);
    return error as TaskConfigError;
  }
  throw new Error(`accepted:\n${text}`);
}

describe('ferrus.toml settings', () => {
  it("take ferrus's defaults for everything left out", () => {
    expect(parseTaskSettings('', FILE)).toEqual({
      limits: { maxCheckRetries: 20, maxReviewCycles: 3, maxFeedbackLines: 30, waitTimeoutSecs: 60 },
      lease: { ttlSecs: 90, heartbeatIntervalSecs: 30 },
      checks: { commands: [] },
    });
    expect(parseTaskSettings('[limits]\nmax_review_cycles = 5\n', FILE).limits).toEqual({
      maxCheckRetries: 20,
      maxReviewCycles: 5,
      maxFeedbackLines: 30,
      waitTimeoutSecs: 60,
    });
  });

  it("read ferrus's own file, ignoring the sections that are not the task's", () => {
    const ferrus = `
[checks]
commands = [
    "cargo clippy -- -D warnings",
    "cargo fmt --check",
    "cargo test",
]

[limits]
max_check_retries = 20  # consecutive check failures before state → Failed
max_review_cycles = 3   # reject→fix cycles before state → Failed
max_feedback_lines = 30
wait_timeout_secs = 60

[agents]
path = ".agents"

[lease]
ttl_secs = 90
heartbeat_interval_secs = 30

[hq.supervisor]
agent = "claude-code"
model = ""
`;
    expect(parseTaskSettings(ferrus, FILE)).toEqual({
      limits: { maxCheckRetries: 20, maxReviewCycles: 3, maxFeedbackLines: 30, waitTimeoutSecs: 60 },
      lease: { ttlSecs: 90, heartbeatIntervalSecs: 30 },
      checks: { commands: ['cargo clippy -- -D warnings', 'cargo fmt --check', 'cargo test'] },
    });
  });

  it('give the task machine its budgets as they are', () => {
    const { limits } = parseTaskSettings('[limits]\nmax_check_retries = 4\nmax_review_cycles = 1\n', FILE);
    expect(createActor(taskMachine, { input: { limits } }).getSnapshot().context.limits).toMatchObject({
      maxCheckRetries: 4,
      maxReviewCycles: 1,
    });
  });

  it('name the file, the key and the problem for a value of the wrong kind', () => {
    const error = refusal('[limits]\nmax_check_retries = "20"\n');
    expect(error.issues).toEqual([{ key: 'limits.max_check_retries', problem: 'expected a whole number, got "20"' }]);
    expect(error.message).toBe(
      'ferrus.toml has a bad setting:\n  [limits] max_check_retries: expected a whole number, got "20"',
    );
    expect(refusal('[limits]\nmax_review_cycles = 2.5\n').issues).toEqual([
      { key: 'limits.max_review_cycles', problem: 'expected a whole number, got 2.5' },
    ]);
  });

  it('refuse budgets below their floor', () => {
    expect(refusal('[limits]\nmax_check_retries = 0\nmax_review_cycles = -1\n').issues).toEqual([
      { key: 'limits.max_check_retries', problem: 'must be at least 1, got 0' },
      { key: 'limits.max_review_cycles', problem: 'must be at least 1, got -1' },
    ]);
    expect(parseTaskSettings('[limits]\nmax_feedback_lines = 0\n', FILE).limits.maxFeedbackLines).toBe(0);
  });

  it('refuse a misspelt key instead of quietly using the default, suggesting the right one', () => {
    const error = refusal('[limits]\nmax_check_retry = 5\n');
    expect(error.issues).toEqual([
      {
        key: 'limits.max_check_retry',
        problem:
          'unknown setting (did you mean max_check_retries?); [limits] takes max_check_retries, max_review_cycles, max_feedback_lines, wait_timeout_secs',
      },
    ]);
    expect(refusal('[lease]\nttl = 5\n').issues[0]).toEqual({
      key: 'lease.ttl',
      problem: 'unknown setting; [lease] takes ttl_secs, heartbeat_interval_secs',
    });
  });

  it('refuse a heartbeat interval that does not fit in the lease', () => {
    expect(refusal('[lease]\nttl_secs = 30\n').issues).toEqual([
      {
        key: 'lease.heartbeat_interval_secs',
        problem: 'must be less than ttl_secs, or the lease expires between two heartbeats',
      },
    ]);
  });

  it('refuse a section that is not a table and check commands that are not strings', () => {
    expect(refusal('limits = 5\n').issues).toEqual([{ key: 'limits', problem: 'expected a table, got 5' }]);
    expect(refusal('[checks]\ncommands = ["npm test", 3]\n').issues).toEqual([
      { key: 'checks.commands.1', problem: 'expected a command line (a string), got 3' },
    ]);
  });

  it('report broken TOML with the line and column', () => {
    const error = refusal('[limits]\nmax_check_retries = = 3\n');
    expect(error.file).toBe('ferrus.toml:2:21');
    expect(error.message).toMatch(/^ferrus\.toml:2:21: not valid TOML: /);
    expect(error.issues).toEqual([{ problem: expect.stringMatching(/^not valid TOML: /) }]);
  });

  describe('read from disk', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'statewright-limits-'));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('give the defaults when there is no file', async () => {
      expect(await readTaskSettings(join(dir, 'absent.toml'))).toEqual(DEFAULT_TASK_SETTINGS);
    });

    it('name the path of a bad file', async () => {
      const file = join(dir, 'ferrus.toml');
      await writeFile(file, '[limits]\nmax_review_cycles = "three"\n');
      await expect(readTaskSettings(file)).rejects.toThrow(
        `${file} has a bad setting:\n  [limits] max_review_cycles: expected a whole number, got "three"`,
      );
    });

    it('say why a path that exists cannot be read', async () => {
      const folder = join(dir, 'folder.toml');
      await mkdir(folder);
      await expect(readTaskSettings(folder)).rejects.toThrow(new RegExp(`^${folder}: cannot be read: EISDIR`));
    });
  });
});
