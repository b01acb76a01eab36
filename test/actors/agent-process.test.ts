import { execa } from 'execa';
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  closeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createActor, type AnyActorRef } from 'xstate';
import { createAgentProcess, type AgentProcessInput } from '../../src/actors/agent-process.js';
import { isSameProcessAlive, processStartTime } from '../../src/os/process-identity.js';
import { startProgram } from '../support/child-processes.js';
import { RecordingRun } from '../support/recording-run.js';

const agents = fileURLToPath(new URL('../../examples/agents/', import.meta.url));
const agent = (name: string) => join(agents, `${name}.sh`);
const root = fileURLToPath(new URL('../../', import.meta.url));

let dir: string;
const actors: AnyActorRef[] = [];
const pids: number[] = [];
/** Handles whose steps the tests commit by hand: what their stopped actors hold back is released after each test. */
const heldRuns: HeldRun[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'statewright-agent-'));
});

afterEach(() => {
  for (const actor of actors.splice(0)) actor.stop();
  for (const run of heldRuns.splice(0)) run.commit();
  // Whatever a test left running (an adopted or a deliberately orphaned agent) goes with it.
  for (const pid of pids.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

function start(input: Partial<AgentProcessInput> & { command: string[] }, run = new RecordingRun()) {
  const actor = createActor(createAgentProcess({ pollMs: 20 })(run), {
    input: { logPath: join(dir, 'agent.log'), cwd: dir, ...input },
  }).start();
  actors.push(actor);
  return { run, actor };
}

/** Whether any process of the group `pgid` is left. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `probe` until it returns something; for conditions no report announces. */
async function poll<T>(probe: () => T | undefined, message: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(message);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const gone = (pgid: number) =>
  poll(() => (groupAlive(pgid) ? undefined : true), `process group ${pgid} is still alive`, 5000);

/** Watches `process.kill` for the rest of the test: the signals sent to the process group of `pid` (liveness probes left out). */
function watchSignals(): (pid: number) => unknown[] {
  const kill = vi.spyOn(process, 'kill');
  onTestFinished(() => kill.mockRestore());
  return (pid) =>
    kill.mock.calls.filter(([target, signal]) => target === -pid && signal !== 0).map(([, signal]) => signal);
}

describe('the agent process actor', () => {
  it('spawns the agent, feeds it the prompt, and reports session, messages, result and exit', async () => {
    const { run } = start({
      command: [agent('succeed')],
      prompt: 'hello world',
      env: { STANDIN_SESSION_ID: 'sess-42', STANDIN_COST: '0.0456' },
    });
    const exited = await run.next('agent.exited');
    const events = run.events();
    expect(events.map((e) => e.type)).toEqual([
      'agent.spawned',
      'agent.session',
      'agent.assistant',
      'agent.assistant',
      'agent.result',
      'agent.exited',
    ]);
    const spawned = events[0]!;
    expect(spawned).toMatchObject({
      pid: expect.any(Number),
      pidStart: expect.stringMatching(/\S/),
      logPath: join(dir, 'agent.log'),
    });
    expect(events[1]).toEqual({ type: 'agent.session', sessionId: 'sess-42' });
    expect(events[2]).toEqual({
      type: 'agent.assistant',
      messageId: expect.stringMatching(/^msg_/),
      text: 'Read 11 bytes of prompt.',
      usage: { input_tokens: 1200, output_tokens: 80, cache_creation_input_tokens: 0, cache_read_input_tokens: 3000 },
    });
    expect(events[4]).toMatchObject({
      type: 'agent.result',
      costUsd: 0.0456,
      totalTokens: 5900,
      isError: false,
      result: 'Done.',
      sessionId: 'sess-42',
    });
    expect(exited).toEqual({ type: 'agent.exited', code: 0, signal: null, reason: 'exited with code 0' });

    // The raw stream is kept; every report is keyed by the process and the line's place in the log.
    const log = readFileSync(join(dir, 'agent.log'), 'utf8');
    expect(log.trimEnd().split('\n')).toHaveLength(4);
    const keys = run.sent.map((s) => s.options?.idempotencyKey);
    expect(new Set(keys).size).toBe(6);
    expect(keys[1]).toBe(`agent:${spawned.pid}:${spawned.pidStart}:0`);
    expect(run.sent.every((s) => s.options?.ifAccepted === true && s.options.actor === 'agent')).toBe(true);
    const record = JSON.parse(readFileSync(join(dir, 'agent.log.pid'), 'utf8'));
    expect(record).toEqual({
      pid: spawned.pid,
      pidStart: spawned.pidStart,
      logOffset: 0,
      cookie: expect.stringMatching(/^[0-9a-f-]{36}$/),
      // Where this process may make cgroups, the agent's own (src/os/tree-cgroup.ts).
      ...(record.cgroup !== undefined && { cgroup: expect.stringMatching(/\/statewright-tree-\d+-[0-9a-f]{12}$/) }),
    });
  });

  it('reports a failing agent with its exit code, the last stderr line and the error result', async () => {
    const { run } = start({ command: [agent('fail')] });
    const exited = await run.next('agent.exited');
    expect(run.events('agent.result')[0]).toMatchObject({ isError: true, costUsd: 0.004 });
    expect(exited).toEqual({
      type: 'agent.exited',
      code: 1,
      signal: null,
      reason: 'exited with code 1: stand-in agent: the task failed',
    });
  });

  it("explains an agent's failed exit by the last error it wrote on stdout (Codex), not by stderr", async () => {
    // What a Codex that ends mid-reconnect writes: no turn.completed, no turn.failed.
    const lines = [
      '{"type":"thread.started","thread_id":"t-1"}',
      '{"type":"error","message":"Reconnecting... 1/5 (stream disconnected before completion)"}',
      '{"type":"error","message":"Reconnecting... 2/5 (stream disconnected before completion)"}',
    ];
    const script = `cat > /dev/null; echo 'Reading prompt from stdin...' >&2; printf '%s\\n' ${lines.map((l) => `'${l}'`).join(' ')}; exit 1`;
    const { run } = start({ command: ['sh', '-c', script], prompt: 'hello' });
    const exited = await run.next('agent.exited');
    expect(exited).toMatchObject({
      code: 1,
      reason: 'exited with code 1: Reconnecting... 2/5 (stream disconnected before completion)',
    });
    expect(run.events('agent.result')).toEqual([]);
  });

  it('reports a crash by its signal and logs the torn last line instead of reporting it', async () => {
    const { run } = start({ command: [agent('crash')] });
    const exited = await run.next('agent.exited');
    expect(exited).toMatchObject({ code: null, signal: 'SIGKILL', reason: 'was killed by SIGKILL' });
    expect(run.events().map((e) => e.type)).toEqual([
      'agent.spawned',
      'agent.session',
      'agent.assistant',
      'agent.exited',
    ]);
    expect(run.logs.some((l) => l.level === 'warn' && l.message.startsWith('agent log line ignored: not JSON'))).toBe(
      true,
    );
  });

  it('reports a command that cannot be spawned, without a spawn report', async () => {
    const { run } = start({ command: [join(dir, 'no-such-agent')] });
    const exited = await run.next('agent.exited');
    expect(exited).toMatchObject({
      code: null,
      signal: null,
      reason: expect.stringMatching(/^spawn failed: .*ENOENT/),
    });
    expect(run.events('agent.spawned')).toEqual([]);
  });

  it('on stop, terminates the whole process group and reports nothing more', async () => {
    const { run, actor } = start({ command: [agent('hang')] });
    const { pid } = await run.next('agent.assistant').then(() => run.events('agent.spawned')[0]!);
    expect(groupAlive(pid)).toBe(true);
    actor.stop();
    await gone(pid);
    await run.until(
      () =>
        run.logs.find(
          (l) => l.message === 'the agent was killed by SIGTERM after its supervisor stopped (not reported)',
        ),
      'the stopped supervisor never saw the exit',
    );
    expect(run.events('agent.exited')).toEqual([]);
  });

  it('on agent.stop, escalates to SIGKILL after the grace period and reports how the agent ended', async () => {
    const { run, actor } = start({ command: [agent('hang')], env: { STANDIN_IGNORE_TERM: '1' }, graceMs: 300 });
    await run.next('agent.assistant');
    const { pid } = run.events('agent.spawned')[0]!;
    const signalsTo = watchSignals();
    actor.send({ type: 'agent.stop' });
    const exited = await run.next('agent.exited');
    expect(exited).toMatchObject({ code: null, signal: 'SIGKILL' });
    // SIGTERM first, which the stand-in ignores, then SIGKILL once the grace period is over.
    expect(signalsTo(pid)).toEqual(['SIGTERM', 'SIGKILL']);
    await gone(pid);
  });

  it('keeps reporting a spending agent until it is stopped', async () => {
    const { run, actor } = start({ command: [agent('over-budget')], graceMs: 1000 });
    await run.until(() => (run.events('agent.assistant').length >= 5 ? true : undefined), 'fewer than 5 messages');
    actor.send({ type: 'agent.stop' });
    const exited = await run.next('agent.exited');
    expect(exited).toMatchObject({ code: null, signal: 'SIGTERM' });
    expect(run.events('agent.assistant').every((e) => e.usage.input_tokens === 100_000)).toBe(true);
  });
});

describe('recovery: never two agents', () => {
  /** Starts a stand-in as an earlier actor would have, and writes its pid record. */
  async function orphan(name: string, env: Record<string, string> = {}) {
    const logPath = join(dir, 'agent.log');
    const out = openSync(logPath, 'a');
    const child = execa(agent(name), [], {
      detached: true,
      stdin: 'ignore',
      stdout: out as 3,
      stderr: 'ignore',
      env,
      reject: false,
      cwd: dir,
    });
    closeSync(out);
    const pid = child.pid!;
    pids.push(pid);
    const pidStart = processStartTime(pid)!;
    writeFileSync(`${logPath}.pid`, JSON.stringify({ pid, pidStart, logOffset: 0 }));
    return { pid, pidStart, logPath, child };
  }

  /** A command that proves it was never run: it would leave a marker file. */
  const neverRun = () => ['sh', '-c', `touch ${join(dir, 'spawned-twice')}`];

  it('adopts the recorded agent instead of spawning another, and reports what it had written', async () => {
    const { pid, pidStart, logPath } = await orphan('hang', { STANDIN_SESSION_ID: 'orphan' });
    await poll(
      () => (readFileSync(logPath, 'utf8').includes('"subtype":"init"') ? true : undefined),
      'the orphan never started',
    );
    const { run } = start({ command: neverRun(), recordedPid: pid, recordedPidStart: pidStart });
    const session = await run.next('agent.session');
    expect(session).toEqual({ type: 'agent.session', sessionId: 'orphan' });
    expect(run.events('agent.spawned')).toEqual([
      { type: 'agent.spawned', pid, pidStart, logPath: join(dir, 'agent.log') },
    ]);
    expect(run.sent[0]!.options?.idempotencyKey).toBe(`agent.spawned:${pid}:${pidStart}`);
    expect(run.logs.some((l) => l.message.startsWith('adopting the running agent'))).toBe(true);
    // The adopted agent ends: its status is unknown, its end is not.
    process.kill(-pid, 'SIGKILL');
    const exited = await run.next('agent.exited');
    expect(exited).toEqual({
      type: 'agent.exited',
      code: null,
      signal: null,
      reason: 'ended while adopted (exit status unknown)',
    });
    expect(existsSync(join(dir, 'spawned-twice'))).toBe(false);
  });

  it('an actor that adopts the agent in the middle of a message still reports each message once, by the same keys', async () => {
    const { pid, pidStart, logPath } = await orphan('hang', { STANDIN_SESSION_ID: 'mid-message' });
    await poll(
      () => (readFileSync(logPath, 'utf8').includes('"type":"assistant"') ? true : undefined),
      'the orphan never spoke',
    );
    // Claude Code writes each block of a message as a line of its own, with the message's id and usage.
    const block = (id: string, content: unknown) =>
      `${JSON.stringify({ type: 'assistant', message: { id, content: [content], usage: { input_tokens: 7, output_tokens: 3 } } })}\n`;
    appendFileSync(logPath, block('msg_split', { type: 'text', text: 'Writing the file.' }));
    const before = new (class extends RecordingRun {
      handingOver = false;
    })();
    start({ command: ['true'], recordedPid: pid, recordedPidStart: pidStart }, before);
    await before.until(
      () => (before.events('agent.assistant').length === 2 ? true : undefined),
      'the first actor did not report both messages',
    );
    // Replaced after a rollback: the first actor lets go of the agent, which writes on meanwhile.
    before.handingOver = true;
    actors.pop()!.stop();
    appendFileSync(
      logPath,
      block('msg_split', { type: 'tool_use', name: 'Write', input: {} }) +
        block('msg_next', { type: 'text', text: 'Done.' }),
    );
    const { run: after } = start({ command: ['true'], recordedPid: pid, recordedPidStart: pidStart });
    await after.until(
      () => (after.events('agent.assistant').length === 3 ? true : undefined),
      'the adopting actor did not report the next message',
    );
    const assistants = (run: RecordingRun) =>
      run.sent
        .filter((s) => s.event.type === 'agent.assistant')
        .map((s) => [s.event.messageId, s.options?.idempotencyKey]);
    const [first, split] = assistants(before);
    // The adopting actor reads the log from the process's start: the same reports by the same keys
    // (the runtime applies them once), and msg_split's second block is known for what it is.
    expect(assistants(after)).toEqual([first, split, ['msg_next', expect.any(String)]]);
  });

  it('reports a recorded agent that is gone, with what it wrote meanwhile, and spawns nothing', async () => {
    const { child } = await orphan('succeed', { STANDIN_SESSION_ID: 'finished-alone' });
    await child;
    const { run } = start({ command: neverRun() });
    const exited = await run.next('agent.exited');
    expect(run.events().map((e) => e.type)).toEqual([
      'agent.spawned',
      'agent.session',
      'agent.assistant',
      'agent.assistant',
      'agent.result',
      'agent.exited',
    ]);
    expect(run.events('agent.result')[0]).toMatchObject({ isError: false, costUsd: 0.0123 });
    expect(exited).toEqual({ type: 'agent.exited', code: null, signal: null, reason: 'process gone before restart' });
    expect(existsSync(join(dir, 'spawned-twice'))).toBe(false);
  });

  it('does not take a reused pid for the recorded agent', async () => {
    // This test's own process is alive, but it did not start at the recorded time.
    const { run } = start({ command: neverRun(), recordedPid: process.pid, recordedPidStart: '1' });
    expect(await run.next('agent.exited')).toMatchObject({ reason: 'process gone before restart' });
    expect(isSameProcessAlive(process.pid, undefined)).toBe(true);
    expect(existsSync(join(dir, 'spawned-twice'))).toBe(false);
  });

  it('survives a crash of the process that spawned it, and the restarted actor adopts it', async () => {
    const logPath = join(dir, 'agent.log');
    const input: AgentProcessInput = {
      command: [agent('hang')],
      cwd: dir,
      logPath,
      env: { STANDIN_SESSION_ID: 'survivor' },
    };
    const host = startProgram(new URL('../support/agent-host.ts', import.meta.url), [JSON.stringify(input)], {
      cwd: root,
      reject: false,
      buffer: false,
    });
    const lines: string[] = [];
    host.stdout!.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
    const reports = () => lines.map((line) => JSON.parse(line) as { event: any; options: any });
    const first = await poll(
      () => {
        const spawned = reports().find((r) => r.event.type === 'agent.spawned');
        return spawned && reports().some((r) => r.event.type === 'agent.session')
          ? (spawned.event as { pid: number; pidStart: string })
          : undefined;
      },
      'the host never reported the spawn and the session',
      15_000,
    );
    pids.push(first.pid);
    host.kill('SIGKILL');
    await host;
    expect(isSameProcessAlive(first.pid, first.pidStart)).toBe(true);

    const restarted = start(input);
    const session = await restarted.run.next('agent.session');
    expect(session).toEqual({ type: 'agent.session', sessionId: 'survivor' });
    expect(restarted.run.events('agent.spawned')).toEqual([
      { type: 'agent.spawned', pid: first.pid, pidStart: first.pidStart, logPath },
    ]);
    const before = reports().find((r) => r.event.type === 'agent.session')!.options.idempotencyKey;
    expect(restarted.run.sent.find((s) => s.event.type === 'agent.session')!.options?.idempotencyKey).toBe(before);
    expect(statSync(logPath).size).toBeGreaterThan(0);
    restarted.actor.stop();
    await gone(first.pid);
  });
});

/**
 * A handle whose commits the test releases by hand, as the runtime does once a step is durable;
 * `rollBack` undoes them as the runtime does (the stops are settled while handing over).
 */
class HeldRun extends RecordingRun {
  readonly held: Array<() => void> = [];
  readonly stops: Array<() => void> = [];
  handingOver = false;
  constructor() {
    super();
    heldRuns.push(this);
  }
  override afterCommit(effect: () => void): void {
    this.held.push(effect);
  }
  override afterStop(effect: () => void): void {
    this.stops.push(effect);
  }
  commit(): void {
    for (const effect of this.stops.splice(0)) effect();
    for (const effect of this.held.splice(0)) effect();
  }
  rollBack(): void {
    this.held.length = 0;
    this.handingOver = true;
    for (const effect of this.stops.splice(0)) effect();
    this.handingOver = false;
  }
}

describe('effects wait for the commit', () => {
  it('spawns only once the step that invoked the actor is committed, and never if it was stopped first', async () => {
    const run = new HeldRun();
    const { actor } = start({ command: [agent('succeed')] }, run);
    // A started supervisor spawns and reports synchronously: one turn of the event loop would show it.
    await new Promise((resolve) => setImmediate(resolve));
    expect(run.sent).toEqual([]);
    run.commit();
    await run.next('agent.exited');

    const stoppedFirst = new HeldRun();
    const second = start({ command: [agent('succeed')], logPath: join(dir, 'second.log') }, stoppedFirst);
    second.actor.stop();
    stoppedFirst.commit();
    await new Promise((resolve) => setImmediate(resolve));
    expect(stoppedFirst.sent).toEqual([]);
    expect(existsSync(join(dir, 'second.log.pid'))).toBe(false);
    actor.stop();
  });

  it('on agent.signal, signals the group after the commit; a stop right after waits the grace before SIGTERM', async () => {
    const run = new HeldRun();
    const signals = join(dir, 'signals.log');
    const { actor } = start(
      { command: [agent('session-interruptible')], env: { STANDIN_SIGNAL_LOG: signals }, graceMs: 2_000 },
      run,
    );
    run.commit();
    await run.next('agent.assistant');
    const { pid } = run.events('agent.spawned')[0]!;
    const signalsTo = watchSignals();
    actor.send({ type: 'agent.signal', signal: 'SIGINT' });
    actor.stop();
    // Signals are sent synchronously: none has gone to the agent's group before the commit.
    expect(signalsTo(pid)).toEqual([]);
    run.commit();
    await gone(pid);
    expect(readFileSync(signals, 'utf8')).toBe('INT\n');
  });

  it('on stop, reports nothing more at once, and signals the agent only once the stopping step is committed', async () => {
    const run = new HeldRun();
    const { actor } = start({ command: [agent('hang')] }, run);
    run.commit();
    await run.next('agent.assistant');
    const { pid } = run.events('agent.spawned')[0]!;
    const signalsTo = watchSignals();
    actor.stop();
    expect(signalsTo(pid)).toEqual([]);
    expect(groupAlive(pid)).toBe(true);
    run.commit();
    await gone(pid);
    expect(signalsTo(pid)).toEqual(['SIGTERM']);
    expect(run.events('agent.exited')).toEqual([]);
  });

  it('a stop whose step is rolled back leaves the agent running, for the restored actor to adopt', async () => {
    const run = new HeldRun();
    const { actor } = start({ command: [agent('hang')] }, run);
    run.commit();
    await run.next('agent.assistant');
    const { pid, pidStart } = run.events('agent.spawned')[0]!;
    pids.push(pid);
    actor.stop();
    run.rollBack();
    expect(run.logs.at(-1)).toMatchObject({ message: 'handing the agent over to the restored actor' });
    const { run: restored } = start({ command: [agent('hang')] });
    expect(await restored.next('agent.spawned')).toEqual({
      type: 'agent.spawned',
      pid,
      pidStart,
      logPath: join(dir, 'agent.log'),
    });
    expect(restored.logs.some((l) => l.message.startsWith('adopting the running agent'))).toBe(true);
  });

  it('on agent.stop, terminates only once the step that sent it is committed', async () => {
    const run = new HeldRun();
    const { actor } = start({ command: [agent('hang')] }, run);
    run.commit();
    await run.next('agent.assistant');
    const { pid } = run.events('agent.spawned')[0]!;
    const signalsTo = watchSignals();
    actor.send({ type: 'agent.stop' });
    expect(signalsTo(pid)).toEqual([]);
    run.commit();
    expect(await run.next('agent.exited')).toMatchObject({ code: null, signal: 'SIGTERM' });
  });

  it('refuses a signal name it does not know, in the log', async () => {
    const run = new HeldRun();
    const { actor } = start({ command: [agent('hang')] }, run);
    run.commit();
    await run.next('agent.assistant');
    actor.send({ type: 'agent.signal', signal: 'kill -9' });
    expect(run.logs.at(-1)).toMatchObject({
      level: 'error',
      message: 'agent.signal ignored: "kill -9" is not a signal name such as "SIGINT"',
    });
  });
});
