/** `statewright explain` and `statewright check` as a user runs them: the built bin, a real process per call. */
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
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
      '6 machines pass 5 rules: execution, review-loop, task, session, codon, codon-run',
    ]);
    const json = await cli(cwd, 'check', '--json');
    expect(JSON.parse(json.stdout)).toEqual({
      ok: true,
      machines: ['execution', 'review-loop', 'task', 'session', 'codon', 'codon-run'],
      violations: [],
    });
  });
});
