/**
 * What the CLI and serve's API say of runs of machines with parallel states, `after` delays, an
 * invoked actor and a spawned child (test/fixtures/words-machines.ts, registered by a user's
 * config): explain, history, status and send's refusals name no XState-internal event, and say
 * XState's own ones in words; with serve stopped, a run whose timer needs a host says to start one.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startCommand } from '../support/child-processes.js';
import { authOf, startServeProcess } from '../support/serve-process.js';
import { machinesConfigDir } from '../support/shapes-config.js';

const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));
const words = fileURLToPath(new URL('../fixtures/words-machines.ts', import.meta.url));

describe('the CLI and the API in words, for machines of any shape', () => {
  it('explain, history, status and refusals name no xstate.* event', { timeout: 300_000 }, async () => {
    const cwd = machinesConfigDir('cli-words', words, 'WORDS_MACHINES');
    const server = await startServeProcess(cwd, ['--create']);
    const cli = async (...args: string[]) => {
      const result = await startCommand(process.execPath, [bin, ...args], { cwd, reject: false });
      return { code: result.exitCode, out: `${result.stdout}${result.stderr}` };
    };
    const texts: string[] = [];
    const said = async (...args: string[]) => {
      const { out } = await cli(...args);
      texts.push(out);
      return out;
    };
    await said('start', 'expense', '--id', 'e1');
    await said('send', 'e1', '{"type":"SUBMIT"}');
    const checks = await said('explain', 'e1');
    // One serve hosts the store: the verdict says what moves the run, not which host holds it.
    expect(checks).toContain('\nverdict: nothing will move it without an outside event: BUDGET_OK, RECEIPT_OK\n');
    expect(checks).toContain('\nmoves on its own:\n  when both regions of checks finish -> managerApproval\n');
    // The refusal offers what a sender can send, and says apart what the run does by itself.
    const refused = await cli('send', 'e1', '{"type":"APPROVE"}');
    texts.push(refused.out);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain(
      'accepts BUDGET_OK, RECEIPT_OK; it moves on its own: when both regions of checks finish -> managerApproval',
    );
    await said('send', 'e1', '{"type":"RECEIPT_OK"}');
    await said('send', 'e1', '{"type":"BUDGET_OK"}');
    const approval = await said('explain', 'e1');
    expect(approval).toMatch(
      / after 1 h -> timedOut, due at \S+ moves it unless an outside event comes first: APPROVE\n/,
    );
    expect(approval).toMatch(
      /\ndeadlines:\n {2}after 1 h: fires at \S+, to timedOut\n {2}after managerTimeout \(2 days\): fires at /,
    );
    const json = JSON.parse((await cli('explain', 'e1', '--json')).out);
    expect(json.accepts.map((a: { type: string }) => a.type)).toEqual(['APPROVE']);
    expect(json.movesOnItsOwn).toEqual([
      { event: 'xstate.after.3600000.expense.managerApproval', label: 'after 1 h', to: ['timedOut'] },
      {
        event: 'xstate.after.managerTimeout.expense.managerApproval',
        label: 'after managerTimeout (2 days)',
        to: ['timedOut'],
      },
    ]);

    await said('start', 'expense', '--id', 'e2');
    for (const type of ['SUBMIT', 'RECEIPT_OK', 'BUDGET_OK', 'APPROVE'])
      await said('send', 'e2', JSON.stringify({ type }));
    expect(await said('explain', 'e2')).toContain(': waiting for payout to report\n');

    await said('start', 'party', '--id', 'p1');
    expect(await said('explain', 'p1')).toContain(
      'nothing will move it without an outside event: WAVE_ADA, LEAVE; friend-ada runs beside it (spawned, not waited on; when friend-ada is done -> over)',
    );
    await said('send', 'p1', '{"type":"WAVE_ADA"}');
    // The child's done event, committed as a step of the run, in words: in the text and as the JSON's label.
    const history = await said('history', 'p1');
    expect(history).toMatch(/ gathering --when friend-ada is done--> over {"actorId":"friend-ada"} {2}by friend-ada$/m);
    const lines = (await cli('history', 'p1', '--json')).out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.at(-1)).toMatchObject({
      event: { type: 'xstate.done.actor.friend-ada' },
      label: 'when friend-ada is done',
    });
    const api = await fetch(`${server.url}/api/runs/p1/history`, { headers: authOf(server.url) });
    const { events } = (await api.json()) as { events: Array<{ event: { type: string }; label: string }> };
    expect(events.map((e) => e.label)).toEqual(['WAVE_ADA', 'when friend-ada is done']);
    await said('status');

    // serve stops: nothing fires the delay of e1 now, and explain says so, with the fix.
    await server.stop('SIGTERM');
    const unhosted = await said('explain', 'e1');
    expect(unhosted).toContain(
      'verdict: no live process hosts it, and its timer fires only in one: start `statewright serve` on its store to fire it; then: after 1 h -> timedOut',
    );
    await said('status');
    await said('history', 'e1');
    expect(texts.filter((text) => /xstate\./.test(text))).toEqual([]);
  });
});
