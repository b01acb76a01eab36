/**
 * The ferrus task's tools through `statewright mcp --task <dir> --as <agent>`: a supervisor's and
 * an executor's servers (the built bin over stdio, the SDK's Client) take a task from create
 * through a failed and a passing check, a consultation and a rejection to Complete. Each role is
 * offered its own actions only, and what the machine refuses (the lease, the state) comes back as a
 * tool error carrying the machine's reason and the tools this role can call now.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { readStateFile } from '../../src/task/state-file.js';
import { testDir } from '../stores/temp-dir.js';
import { until } from '../support/until.js';
import { connectStatewrightMcp, textOf } from './mcp-client.js';

type Client = Awaited<ReturnType<typeof connectStatewrightMcp>>['client'];

it("offers each role its actions and takes a task to Complete, the machine's refusals as tool errors", async () => {
  const dir = testDir('mcp-task');
  writeFileSync(
    join(dir, 'ferrus.toml'),
    `[limits]\nwait_timeout_secs = 20\n\n[checks]\ncommands = ["test -f done.txt || { echo 'done.txt is missing'; exit 1; }"]\n`,
  );
  const serverFor = async (as: string) => (await connectStatewrightMcp(['--task', dir, '--as', as], {})).client;
  const [supervisor, executor, human] = (await Promise.all(
    ['supervisor:claude:1', 'executor:codex:1', 'human:me:1'].map(serverFor),
  )) as [Client, Client, Client];
  const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();
  expect(await names(supervisor)).toEqual(
    ['answer', 'approve', 'ask', 'claim', 'create', 'heartbeat', 'reject', 'reset', 'status'].sort(),
  );
  expect(await names(executor)).toEqual(
    ['ask', 'check', 'claim', 'consult', 'heartbeat', 'resume', 'status', 'submit'].sort(),
  );
  expect(await names(human)).toEqual(['answer', 'reset', 'status']);
  const create = (await supervisor.listTools()).tools.find((t) => t.name === 'create')!;
  expect(create.inputSchema).toMatchObject({ type: 'object', required: ['task'] });

  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
    return { text: textOf(result), isError: result.isError === true };
  };

  // Nothing to do before a task exists: each role is told what it does about that, in its own tools.
  const none = await call(executor, 'status');
  expect(none).toEqual({
    isError: true,
    text: expect.stringMatching(/^NoTaskError: No task in .*: the supervisor creates it\. Call status/),
  });
  expect(none.text).not.toContain('statewright task create');
  expect(await call(supervisor, 'status')).toEqual({
    isError: true,
    text: expect.stringMatching(/^NoTaskError: No task in .*: call create with what the executor is to do/),
  });
  expect(await call(supervisor, 'create', { task: 'Write done.txt' })).toEqual({
    isError: false,
    text: expect.stringMatching(/^task is Executing\ntask: Write done.txt\n/),
  });
  // A submission before the checks passed: refused by the machine, its words in the tool's error.
  const early = await call(executor, 'submit', { summary: 'done' });
  expect(early.isError).toBe(true);
  expect(early.text).toMatch(/^InvalidTransitionError: .*submit/);
  // ... naming what the executor can call now, by its tools: not the machine's events, not the supervisor's tools.
  const callable = /As executor you can call now: (.*)\.$/.exec(early.text)?.[1]?.split(', ');
  expect(callable).toEqual(expect.arrayContaining(['check', 'status']));
  expect(callable).not.toContain('submit');
  for (const notATool of ['approve', 'reject', 'respond_consult', 'lease_expired', 'ask_human'])
    expect(early.text).not.toContain(notATool);
  // Arguments the tool does not take: refused naming the field.
  expect(await call(supervisor, 'reject', {})).toEqual({
    isError: true,
    text: expect.stringMatching(/^ToolArgumentsError: The arguments of reject are not what it takes: notes: /),
  });

  const failed = await call(executor, 'check');
  expect(failed.text).toMatch(/^The checks did not pass\.\ntask is Addressing\n/);
  expect(failed.text).toContain('done.txt is missing');
  // Another executor, while the first holds the lease: the machine's lease refuses it.
  const other = await serverFor('executor:codex:2');
  const taken = await call(other, 'check');
  expect(taken.isError).toBe(true);
  expect(taken.text).toMatch(/^LeaseError: .*executor:codex:1/);

  // A consultation: the executor's call waits until the supervisor's response is in.
  const consulting = call(executor, 'consult', { question: 'Where does done.txt go?' });
  await untilState(dir, 'Consultation');
  expect(await call(supervisor, 'answer', { response: 'x' })).toMatchObject({ isError: true }); // the tool's field is answer
  expect((await call(supervisor, 'answer', { answer: 'In the project folder.' })).isError).toBe(false);
  expect((await consulting).text).toMatch(/^response: In the project folder\.\ntask is Addressing/);

  writeFileSync(join(dir, 'done.txt'), 'done\n');
  expect((await call(executor, 'check')).text).toMatch(/^The checks passed\.\ntask is Checking \(checks passed\)/);
  expect((await call(executor, 'submit', { summary: 'Wrote done.txt' })).text).toMatch(/^task is Reviewing/);
  expect((await call(supervisor, 'reject', { notes: 'End it with a newline.' })).text).toMatch(/^task is Addressing/);
  expect((await call(executor, 'check')).isError).toBe(false);
  expect((await call(executor, 'submit', { summary: 'It ends with one.' })).isError).toBe(false);
  expect((await call(supervisor, 'approve')).text).toMatch(/^task is Complete/);
  expect(await readStateFile(join(dir, 'STATE.json'))).toMatchObject({ state: 'Complete', review_cycles: 1 });
});

/** Waits for STATE.json, which the task service keeps after every commit, to show `state`. */
async function untilState(dir: string, state: string) {
  await until(
    `the task to reach ${state}`,
    async () => (await readStateFile(join(dir, 'STATE.json')))?.state === state,
  );
}
