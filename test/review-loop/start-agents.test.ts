import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor, type EventObject } from 'xstate';
import { reviewLoopMachine } from '../../machines/review-loop/index.js';
import { systemClock } from '../../src/actor-contract/clock.js';
import type { RunHandle, SendOptions } from '../../src/actor-contract/run-handle.js';
import { resolveLoopSettings, machineInput } from '../../src/review-loop/settings.js';
import { agentStartProblem, startAgents } from '../../src/review-loop/start-agents.js';

const agents = join(import.meta.dirname, '../../examples/agents');
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'statewright-start-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('whether an agent can start', () => {
  it('accepts an executable by path, relative path, or on PATH', async () => {
    expect(
      await agentStartProblem('primary', { name: 'codex', command: [join(agents, 'review-loop-primary.sh')] }),
    ).toBeUndefined();
    expect(
      await agentStartProblem('primary', { name: 'codex', command: ['./review-loop-primary.sh'], cwd: agents }),
    ).toBeUndefined();
    expect(await agentStartProblem('primary', { name: 'codex', command: ['sh', '-c', 'true'] })).toBeUndefined();
    expect(
      await agentStartProblem('primary', {
        name: 'codex',
        command: ['review-loop-reviewer.sh'],
        env: { PATH: agents },
      }),
    ).toBeUndefined();
  });

  it('names the agent and what is wrong', async () => {
    await writeFile(join(dir, 'not-executable.sh'), '#!/bin/sh\n');
    await chmod(join(dir, 'not-executable.sh'), 0o644);
    expect(await agentStartProblem('reviewer', { name: 'claude', command: ['no-such-agent-program'] })).toBe(
      "reviewer agent's program 'no-such-agent-program' was not found on PATH",
    );
    expect(await agentStartProblem('reviewer', { name: 'claude', command: [join(dir, 'not-executable.sh')] })).toBe(
      `reviewer agent's program ${join(dir, 'not-executable.sh')} is not an executable file`,
    );
    expect(await agentStartProblem('reviewer', { name: 'claude', command: [dir] })).toMatch(
      /is not an executable file/,
    );
    expect(await agentStartProblem('primary', { name: 'codex', command: ['sh'], cwd: join(dir, 'missing') })).toBe(
      `primary agent's working directory ${join(dir, 'missing')} does not exist or is not a directory`,
    );
  });
});

/** The machine with the real startAgents actor; what it sends is applied as the runtime would. */
function loopWith(settingsInput: Parameters<typeof resolveLoopSettings>[0]) {
  const settings = resolveLoopSettings(settingsInput);
  const sent: Array<{ event: EventObject; options?: SendOptions }> = [];
  let actor: ReturnType<typeof createActor<typeof reviewLoopMachine>> | undefined;
  const run: RunHandle = {
    runId: 'run-1',
    machine: 'review-loop',
    clock: systemClock,
    send: (event, options) => {
      sent.push({ event, ...(options && { options }) });
      actor!.send(event as never);
    },
    afterCommit: (effect) => queueMicrotask(effect),
    afterStop: (effect) => effect(),
    log: () => {},
  };
  actor = createActor(reviewLoopMachine.provide({ actors: { startAgents: startAgents(settings)(run) as never } }), {
    input: machineInput(settings),
  });
  actor.start();
  return { actor, sent };
}

const settled = (actor: { getSnapshot(): { value: unknown } }) =>
  new Promise<void>((resolve) => {
    const poll = () => (actor.getSnapshot().value === 'init' ? setTimeout(poll, 5) : resolve());
    poll();
  });

describe('the startAgents actor', () => {
  it('moves the loop to working when every agent can start', async () => {
    const { actor, sent } = loopWith({
      prompt: 'p',
      primary: { command: [join(agents, 'review-loop-primary.sh')] },
      reviewer: { command: [join(agents, 'review-loop-reviewer.sh')] },
    });
    await settled(actor);
    expect(actor.getSnapshot().value).toBe('working');
    expect(sent).toEqual([
      {
        event: { type: 'AGENTS_STARTED' },
        options: expect.objectContaining({ actor: 'startAgents', idempotencyKey: 'run-1:startAgents' }),
      },
    ]);
  });

  it('fails the loop from init, before any work, when the reviewer cannot start', async () => {
    const { actor } = loopWith({
      prompt: 'p',
      primary: { command: [join(agents, 'review-loop-primary.sh')] },
      reviewer: { command: ['codex-not-installed'] },
    });
    await settled(actor);
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context).toMatchObject({
      iteration: 0,
      error: "reviewer agent's program 'codex-not-installed' was not found on PATH",
    });
  });
});
