/**
 * When the runtime puts a run back to its last commit (a commit failed, or the machine threw), it
 * replaces the run's actor with one restored from that commit. The agent process the old actor
 * supervised is handed over, not killed: the restored actor adopts it, and it is spawned once. A step
 * that stops the agent (the run leaves its state) ends it only once that step is durable.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assign, fromCallback, sendTo, setup, type EventObject } from 'xstate';
import type { Lifecycle } from '../../machines/index.js';
import { createAgentProcess, type AgentProcessInput } from '../../src/actors/agent-process.js';
import { isSameProcessAlive } from '../../src/os/process-identity.js';
import { MachineError, createRuntime, type Runtime } from '../../src/runtime/index.js';
import { tempDir } from '../stores/temp-dir.js';
import { failingStore } from '../support/failing-store.js';
import { until } from '../support/until.js';

const interruptible = fileURLToPath(new URL('../../examples/agents/session-interruptible.sh', import.meta.url));

interface WorkerContext {
  input: AgentProcessInput;
  pid: number | null;
  pidStart: string | null;
  notes: number;
  exit: { code: number | null; reason: string } | null;
}

/** One agent, supervised while the run is `working`. */
const worker = setup({
  types: { input: {} as AgentProcessInput, context: {} as WorkerContext },
  actors: { agentProcess: fromCallback<EventObject, AgentProcessInput>(() => {}) },
}).createMachine({
  id: 'worker',
  initial: 'working',
  context: ({ input }) => ({ input, pid: null, pidStart: null, notes: 0, exit: null }),
  states: {
    working: {
      invoke: { src: 'agentProcess', id: 'agent', input: ({ context }) => context.input },
      on: {
        'agent.spawned': {
          actions: assign(({ event }) => ({
            pid: (event as unknown as { pid: number }).pid,
            pidStart: (event as unknown as { pidStart: string }).pidStart,
          })),
        },
        NOTE: { actions: assign({ notes: ({ context }) => context.notes + 1 }) },
        BOOM: {
          actions: () => {
            throw new Error('boom');
          },
        },
        STOP: { actions: sendTo('agent', { type: 'agent.stop' }) },
        LEAVE: 'away',
        'agent.exited': {
          target: 'done',
          actions: assign({
            exit: ({ event }) => ({
              code: (event as unknown as { code: number | null }).code,
              reason: (event as unknown as { reason: string }).reason,
            }),
          }),
        },
      },
    },
    away: {
      on: {
        BOOM: {
          actions: () => {
            throw new Error('boom');
          },
        },
      },
    },
    done: { type: 'final' },
  },
});
const machines = { worker: { machine: worker, version: 1, summary: 'one supervised agent' } satisfies Lifecycle };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function workingRun() {
  const dir = await tempDir('hand-over');
  const signals = join(dir.path, 'signals.log');
  const { store, failNext } = failingStore();
  const logs: string[] = [];
  const rt: Runtime = await createRuntime({
    store,
    machines,
    actors: { worker: { agentProcess: createAgentProcess({ pollMs: 20 }) } },
    onLog: (entry) => logs.push(entry.message),
  });
  cleanups.push(async () => {
    await rt.close();
    await dir.remove();
  });
  const input: AgentProcessInput = {
    command: [interruptible],
    logPath: join(dir.path, 'agent.log'),
    env: { STANDIN_SIGNAL_LOG: signals },
    graceMs: 2000,
  };
  const { runId } = await rt.start('worker', { input });
  const agent = await until('the agent to be spawned', async () => {
    const { context } = await rt.getSnapshot(runId);
    return context.pid ? { pid: context.pid as number, pidStart: context.pidStart as string } : undefined;
  });
  // The stand-in writes its init line once its traps are installed: from then on it logs every signal.
  await until(
    'the agent to be ready',
    () => existsSync(input.logPath) && readFileSync(input.logPath, 'utf8').includes('"subtype":"init"'),
  );
  const signalled = () => (existsSync(signals) ? readFileSync(signals, 'utf8').split('\n').filter(Boolean) : []);
  // Every signal this process sends to the agent's group (the supervisor's SIGTERM and SIGKILL are sent synchronously on stop).
  const kill = vi.spyOn(process, 'kill');
  cleanups.push(async () => kill.mockRestore());
  const signalsSent = () =>
    kill.mock.calls.filter(([pid, signal]) => Math.abs(pid) === agent.pid && signal !== 0).map(([, signal]) => signal);
  return { rt, store, runId, agent, failNext, signalled, signalsSent, logs };
}

/** Stops the agent through the machine and returns how the run ended, with every pid it spawned. */
async function stopAndCollect(rt: Runtime, runId: string) {
  await rt.dispatch(runId, { type: 'STOP' });
  const done = await until('the run to end', async () => {
    const snapshot = await rt.getSnapshot(runId);
    return snapshot.state === 'done' ? snapshot : undefined;
  });
  const spawned = (await rt.history(runId)).filter((e) => e.event.type === 'agent.spawned').map((e) => e.event.pid);
  return { exit: done.context.exit, spawned };
}

describe('handing an agent over to the restored actor', () => {
  it('after a failed commit: the agent is not signalled, is adopted, and its exit status still arrives', async () => {
    const { rt, runId, agent, failNext, signalled, signalsSent, logs } = await workingRun();
    failNext();
    await expect(rt.dispatch(runId, { type: 'NOTE' })).rejects.toThrow('disk full');
    expect((await rt.getSnapshot(runId)).context.notes).toBe(0);
    // A supervisor that ended the agent would have signalled its group before the dispatch settled.
    expect(signalsSent()).toEqual([]);
    expect(isSameProcessAlive(agent.pid, agent.pidStart)).toBe(true);
    expect(signalled()).toEqual([]);
    // The old supervisor let go (XState leaves the children of a machine that threw running) and the new one adopted.
    expect(logs.filter((m) => /handing the agent over|adopting the running agent/.test(m))).toEqual([
      'handing the agent over to the restored actor',
      'adopting the running agent instead of spawning another',
    ]);
    expect((await rt.dispatch(runId, { type: 'NOTE' })).context.notes).toBe(1);

    const { exit, spawned } = await stopAndCollect(rt, runId);
    expect(signalled()).toEqual(['TERM']);
    expect(exit).toEqual({ code: 143, reason: expect.stringMatching(/^exited with code 143/) });
    expect(new Set(spawned)).toEqual(new Set([agent.pid]));
  });

  it('after the machine threw: the same, and the old supervisor lets go too', async () => {
    const { rt, runId, agent, signalled, signalsSent, logs } = await workingRun();
    await expect(rt.dispatch(runId, { type: 'BOOM' })).rejects.toThrow(MachineError);
    // A supervisor that ended the agent would have signalled its group before the dispatch settled.
    expect(signalsSent()).toEqual([]);
    expect(isSameProcessAlive(agent.pid, agent.pidStart)).toBe(true);
    expect(signalled()).toEqual([]);
    // The old supervisor let go (XState leaves the children of a machine that threw running) and the new one adopted.
    expect(logs.filter((m) => /handing the agent over|adopting the running agent/.test(m))).toEqual([
      'handing the agent over to the restored actor',
      'adopting the running agent instead of spawning another',
    ]);

    const { exit, spawned } = await stopAndCollect(rt, runId);
    expect(signalled()).toEqual(['TERM']);
    expect(exit).toEqual({ code: 143, reason: expect.stringMatching(/^exited with code 143/) });
    expect(new Set(spawned)).toEqual(new Set([agent.pid]));
    const history = await rt.history(runId);
    expect(history.filter((e) => e.event.type === 'agent.exited')).toHaveLength(1);
  });

  it('when the run is stopped for good, the agent is ended as before', async () => {
    const { rt, agent, signalled } = await workingRun();
    await rt.close();
    await until('the agent to end', () => !isSameProcessAlive(agent.pid, agent.pidStart));
    expect(signalled()).toEqual(['TERM']);
  });

  it('closed with handOver (a graceful restart): the agent runs on, unsignalled, and the next runtime on the store adopts it', async () => {
    const { rt, store, runId, agent, signalled, signalsSent } = await workingRun();
    await rt.close({ handOver: true });
    expect(signalsSent()).toEqual([]);
    expect(isSameProcessAlive(agent.pid, agent.pidStart)).toBe(true);

    const logs: string[] = [];
    const next = await createRuntime({
      store,
      machines,
      actors: { worker: { agentProcess: createAgentProcess({ pollMs: 20 }) } },
      onLog: (entry) => logs.push(entry.message),
    });
    cleanups.push(() => next.close());
    await until('the restored actor to adopt the agent', () =>
      logs.includes('adopting the running agent instead of spawning another'),
    );
    expect(signalled()).toEqual([]);
    const { exit, spawned } = await stopAndCollect(next, runId);
    expect(signalled()).toEqual(['TERM']);
    expect(exit).toMatchObject({ reason: expect.any(String) });
    expect(spawned).toEqual([agent.pid]);
  });
});

describe('a step that stops the agent ends it only once the step is durable', () => {
  it('its commit refused: the agent is not signalled, and the restored actor adopts it; committed: it is ended', async () => {
    const { rt, runId, agent, failNext, signalled, signalsSent, logs } = await workingRun();
    failNext();
    await expect(rt.dispatch(runId, { type: 'LEAVE' })).rejects.toThrow('disk full');
    expect((await rt.getSnapshot(runId)).state).toBe('working');
    // The supervisor stopped as the machine left 'working' in memory; ending the agent then would
    // have signalled its group before the dispatch settled.
    expect(signalsSent()).toEqual([]);
    expect(isSameProcessAlive(agent.pid, agent.pidStart)).toBe(true);
    expect(logs.filter((m) => /handing the agent over|adopting the running agent/.test(m))).toEqual([
      'handing the agent over to the restored actor',
      'adopting the running agent instead of spawning another',
    ]);

    expect((await rt.dispatch(runId, { type: 'LEAVE' })).state).toBe('away');
    await until('the agent to end', () => !isSameProcessAlive(agent.pid, agent.pidStart));
    expect(signalled()).toEqual(['TERM']);
    const spawned = (await rt.history(runId)).filter((e) => e.event.type === 'agent.spawned').map((e) => e.event.pid);
    expect(new Set(spawned)).toEqual(new Set([agent.pid]));
  });

  it('a later event of the same batch that throws does not undo the stop of the step before it', async () => {
    const { rt, runId, agent, signalled } = await workingRun();
    // Sent in one turn: applied as one batch, whose first step is committed and whose second is refused.
    const leave = rt.dispatch(runId, { type: 'LEAVE' });
    const boom = rt.dispatch(runId, { type: 'BOOM' });
    await expect(boom).rejects.toThrow(MachineError);
    expect((await leave).state).toBe('away');
    await until('the agent to end', () => !isSameProcessAlive(agent.pid, agent.pidStart));
    expect(signalled()).toEqual(['TERM']);
  });
});
