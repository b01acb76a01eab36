/**
 * `statewright status` and `explain` on a session whose Claude is retrying a model call (its
 * `system/api_retry`, kept as the session's `retrying`): the table's NOTE column says so beside its
 * state, as --json's context always did, and explain gives the whole of it. The session is moved
 * through a runtime on SQLite with an agent actor that runs nothing, as its actor would report it.
 */
import { join } from 'node:path';
import { fromCallback } from 'xstate';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { parseSessionInput } from '../../machines/session/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
const cli = (cwd: string, ...args: string[]) => startCommand(process.execPath, [bin, ...args], { cwd, reject: false });

describe('status and explain of a session whose agent is retrying', () => {
  it('show "retrying 3/10 (HTTP 529)" in the NOTE column, and explain says since when', async () => {
    const cwd = testDir('status-notes');
    const path = join(cwd, 'state.db');
    const store = sqliteStore(path);
    const runtime = await createRuntime({
      store,
      machines: lifecycles,
      recover: false,
      actors: { session: { agent: () => fromCallback(() => {}) } },
    });
    const input = (query: string) =>
      parseSessionInput({ query, created_at: runtime.clock.now(), log_path: join(cwd, `${query}.jsonl`) });
    for (const id of ['retrying', 'working']) {
      await runtime.start('session', { id, input: input(id) });
      await runtime.dispatch(id, { type: 'agent.session', sessionId: `claude-${id}` }, { actor: 'agent' });
    }
    for (const attempt of [1, 2, 3])
      await runtime.dispatch(
        'retrying',
        { type: 'agent.retrying', attempt, maxRetries: 10, errorStatus: 529, error: 'overloaded' },
        { actor: 'agent' },
      );
    await runtime.close();
    await store.close();

    const table = (await cli(cwd, 'status', '--store', `sqlite:${path}`)).stdout.split('\n');
    expect(table[0]).toMatch(/^RUN\s+MACHINE\s+STATE\s+STATUS\s+EVENTS\s+UPDATED\s+NOTE$/);
    const row = (id: string) => table.find((line) => line.startsWith(`${id} `))!;
    expect(row('retrying')).toMatch(/^retrying\s+session\s+running\s+active\s+4\s.*\sretrying 3\/10 \(HTTP 529\)$/);
    // A session at work has no note.
    expect(row('working')).toMatch(/^working\s+session\s+running\s+active\s+1\s+\S+$/);

    const json = JSON.parse((await cli(cwd, 'status', '--json', '--store', `sqlite:${path}`)).stdout).runs;
    expect(json.find((r: { runId: string }) => r.runId === 'retrying').context.retrying).toMatchObject({
      attempt: 3,
      max_retries: 10,
      error_status: 529,
    });
    const explained = (await cli(cwd, 'explain', 'retrying', '--store', `sqlite:${path}`)).stdout;
    expect(explained).toMatch(/Claude is retrying: attempt 3 of 10, HTTP 529 \(overloaded\), since \d{4}-\d\d-\d\dT/);
  });
});
