/** `statewright explain` and `statewright check` as a user runs them: the built bin, a real process per call. */
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { configWith } from '../support/config-with.js';
import { startCommand } from '../support/child-processes.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
const cli = (cwd: string, ...args: string[]) => startCommand(process.execPath, [bin, ...args], { cwd, reject: false });

describe('statewright explain', () => {
  it('explains a run from the store, as text and as JSON, and refuses an unknown run', async () => {
    const cwd = testDir('cli-explain');
    await cli(cwd, 'start', 'execution', '--id', 'job-1');
    await cli(cwd, 'send', 'job-1', '{"type":"ENQUEUE"}');
    const json = await cli(cwd, 'explain', 'job-1', '--json');
    expect(json.exitCode).toBe(0);
    const explanation = JSON.parse(json.stdout);
    const history = (await cli(cwd, 'history', 'job-1', '--json')).stdout.split('\n').map((line) => JSON.parse(line));
    expect(explanation).toMatchObject({
      runId: 'job-1',
      machine: 'execution',
      state: 'queued',
      status: 'active',
      since: history[0].at,
      accepts: [
        { type: 'START', needs: { fields: [] } },
        { type: 'FAIL', needs: { fields: [] } },
        { type: 'CANCEL', needs: { fields: [] } },
      ],
      deadlines: [],
      // The `start` process that committed it is gone.
      owner: { alive: false },
      verdict: 'nothing will move it without an outside event: START, FAIL, CANCEL',
    });
    const text = await cli(cwd, 'explain', 'job-1');
    expect(text.stdout.split('\n').slice(0, 2)).toEqual([
      `job-1 (execution) is in 'queued' since ${new Date(history[0].at).toISOString()} (active)`,
      'verdict: nothing will move it without an outside event: START, FAIL, CANCEL',
    ]);
    const unknown = await cli(cwd, 'explain', 'nope');
    expect([unknown.exitCode, unknown.stderr]).toEqual([
      1,
      "statewright: Unknown run 'nope': no run with this id exists in the store. Check the id with `statewright status`.",
    ]);
  });
});

describe('statewright check', () => {
  it('passes the registry, exit 0, as text and as JSON', async () => {
    const cwd = testDir('cli-check');
    const text = await cli(cwd, 'check');
    expect([text.exitCode, text.stdout]).toEqual([
      0,
      '6 machines pass 6 rules: execution, review-loop, task, session, codon, codon-run',
    ]);
    const json = await cli(cwd, 'check', '--json');
    expect(JSON.parse(json.stdout)).toEqual({
      ok: true,
      machines: ['execution', 'review-loop', 'task', 'session', 'codon', 'codon-run'],
      violations: [],
    });
  });
});

const article = `createMachine({
  initial: 'draft',
  states: {
    draft: { on: { SUBMIT: 'review' } },
    review: { on: { PUBLISH: 'published', REJECT: 'draft' } },
    published: { type: 'final' },
  },
})`;

describe('statewright check on a config of ones own', () => {
  it('passes an ordinary article with warnings (exit 0), and fails it when the lifecycle is strict (exit 1)', async () => {
    const lenient = testDir('cli-check-lint');
    configWith(lenient, `{ name: 'article', version: 1, summary: 'an article', machine: ${article} }`);
    const text = await cli(lenient, 'check');
    expect([text.exitCode, text.stdout.split('\n')]).toEqual([
      0,
      [
        "article: warning: waits-without-deadline in 'draft' (path: draft): only an outside event moves 'draft' (SUBMIT) and it arms no deadline: give it a timer (an invoked deadline actor or `after`), or declare who it waits for with meta { waitsFor: '...' }",
        expect.stringMatching(/^article: warning: waits-without-deadline in 'review' \(path: draft -SUBMIT-> review\)/),
        expect.stringMatching(
          /^article: warning: unbounded-cycle in 'draft' \(path: draft -SUBMIT-> review -REJECT-> draft\): the cycle/,
        ),
        '1 machine passes 6 rules (3 warning(s) in 1 of them): article',
      ],
    ]);
    const json = JSON.parse((await cli(lenient, 'check', '--json')).stdout);
    expect(json.ok).toBe(true);
    expect(json.violations.map((v: { machine: string; severity: string }) => [v.machine, v.severity])).toEqual([
      ['article', 'warning'],
      ['article', 'warning'],
      ['article', 'warning'],
    ]);

    const strict = testDir('cli-check-strict');
    configWith(strict, `{ name: 'article', version: 1, summary: 'an article', strict: true, machine: ${article} }`);
    const failed = await cli(strict, 'check');
    expect(failed.exitCode).toBe(1);
    expect(failed.stdout).toMatch(/^article: waits-without-deadline in 'draft'/);
    expect(failed.stdout).toMatch(/\n3 violation\(s\) in 1 of 1 machines$/);
  });

  it('fails a machine with no way out, naming its lifecycle rather than its id', async () => {
    const cwd = testDir('cli-check-error');
    configWith(
      cwd,
      `{ name: 'orders', version: 1, summary: 'orders', machine: createMachine({
        initial: 'open',
        states: { open: { on: { PAY: 'paid' }, after: { 1000: 'closed' } }, paid: {}, closed: { type: 'final' } },
      }) }`,
    );
    const json = await cli(cwd, 'check', '--json');
    expect(json.exitCode).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      ok: false,
      machines: ['orders'],
      violations: [
        {
          machine: 'orders',
          rule: 'no-way-out',
          severity: 'error',
          state: 'paid',
          path: 'open -PAY-> paid',
          message:
            "'paid' is not final and nothing leads out of it: a run there is stuck for ever. Add a transition out, or make it final",
        },
      ],
    });
  });
});
