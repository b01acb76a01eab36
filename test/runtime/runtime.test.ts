import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { InvalidTransitionError, MetadataValidationError } from '../../src/graph/index.js';
import {
  InvalidArgumentError,
  ManualClock,
  MalformedEventError,
  UnknownMachineError,
  UnknownRunError,
  RunExistsError,
  createRuntime,
  type CommittedStep,
  type Runtime,
} from '../../src/runtime/index.js';
import { memoryStore, type Store } from '../../src/stores/index.js';
import { timedLifecycle } from '../fixtures/timed-machine.js';
import { failingStore } from '../support/failing-store.js';

const machines = { ...lifecycles, timed: timedLifecycle };

describe('the runtime', () => {
  it('applies events in the order sent and acknowledges each after its commit', async () => {
    const store = memoryStore();
    const rt = await createRuntime({ store, machines });
    const { runId } = await rt.start('execution');
    const seen: Array<[number, string]> = [];
    rt.subscribe(async (step) => {
      // Told after commit: the store already has this step.
      expect((await store.load(step.runId))!.seq).toBeGreaterThanOrEqual(step.seq);
      seen.push([step.seq, step.after]);
    });
    const results = await Promise.all(['ENQUEUE', 'START', 'SUCCEED'].map((type) => rt.dispatch(runId, { type })));
    expect(results.map((r) => [r.seq, r.state])).toEqual([
      [1, 'queued'],
      [2, 'running'],
      [3, 'success'],
    ]);
    expect(seen).toEqual([
      [1, 'queued'],
      [2, 'running'],
      [3, 'success'],
    ]);
    expect((await store.load(runId))!.status).toBe('done');
    await rt.close();
  });

  it('refuses an event the state does not accept with InvalidTransitionError and changes nothing', async () => {
    const store = memoryStore();
    const rt = await createRuntime({ store, machines });
    const { runId } = await rt.start('execution');
    await expect(rt.dispatch(runId, { type: 'SUCCEED' })).rejects.toThrow(
      new InvalidTransitionError('pending', 'SUCCEED', undefined, ['ENQUEUE', 'CANCEL', 'SKIP', 'HOLD', 'WAIT']),
    );
    expect(await rt.history(runId)).toEqual([]);
    expect((await rt.getSnapshot(runId)).seq).toBe(0);
    expect((await rt.dispatch(runId, { type: 'ENQUEUE' })).state).toBe('queued');
    await rt.close();
  });

  it('refuses metadata its guard rejects with MetadataValidationError naming the fields', async () => {
    const rt = await createRuntime({ store: memoryStore(), machines, clock: new ManualClock() });
    const { runId } = await rt.start('timed', { input: { timeoutMs: 1000, createdAt: rt.clock.now() } });
    const error = await rt.dispatch(runId, { type: 'CLAIM', attempt: 'one' } as never).catch((e) => e);
    expect(error).toBeInstanceOf(MetadataValidationError);
    expect(error.missing).toEqual(['worker']);
    expect(error.invalid).toEqual([{ field: 'attempt', problem: expect.stringContaining('number') }]);
    expect(error.message).toMatch(/missing worker; attempt: /);
    expect((await rt.getSnapshot(runId)).state).toBe('waiting');
    expect((await rt.dispatch(runId, { type: 'CLAIM', worker: 'w1', attempt: 1 } as never)).context.worker).toBe('w1');
    await rt.close();
  });

  it('returns the first result for a repeated idempotency key and applies nothing', async () => {
    const store = memoryStore();
    const rt = await createRuntime({ store, machines });
    const { runId } = await rt.start('execution');
    const first = await rt.dispatch(runId, { type: 'ENQUEUE' }, { idempotencyKey: 'enqueue-1' });
    const again = await rt.dispatch(runId, { type: 'ENQUEUE' }, { idempotencyKey: 'enqueue-1' });
    expect(again).toEqual(first);
    // A key repeated within one batch is caught too.
    const [a, b] = await Promise.all([
      rt.dispatch(runId, { type: 'START' }, { idempotencyKey: 'start-1' }),
      rt.dispatch(runId, { type: 'START' }, { idempotencyKey: 'start-1' }),
    ]);
    expect(b).toEqual(a);
    expect((await rt.history(runId)).map((e) => e.event.type)).toEqual(['ENQUEUE', 'START']);
    await rt.close();
  });

  it('gives unknown runs, unknown machines, malformed events and duplicate ids their own errors', async () => {
    // Loose: it starts machines that are not registered, on purpose.
    const rt: Runtime = await createRuntime({ store: memoryStore(), machines });
    await expect(rt.dispatch('nope', { type: 'START' })).rejects.toThrow(UnknownRunError);
    await expect(rt.getSnapshot('nope')).rejects.toThrow("Unknown run 'nope'");
    await expect(rt.history('nope')).rejects.toThrow(UnknownRunError);
    await expect(rt.start('nonsense')).rejects.toThrow(UnknownMachineError);
    await expect(rt.start('toString')).rejects.toThrow(UnknownMachineError);
    const { runId } = await rt.start('execution', { id: 'job-1' });
    await expect(rt.start('execution', { id: 'job-1' })).rejects.toThrow(RunExistsError);
    for (const bad of [
      null,
      'START',
      [],
      {},
      { type: 7 },
      { type: '' },
      { type: 'xstate.init' },
      { type: 'START', at: 'now' },
      { type: 'START', n: 1n },
    ]) {
      await expect(rt.dispatch(runId, bad as never)).rejects.toThrow(MalformedEventError);
    }
    expect(await rt.history(runId)).toEqual([]);
    await rt.close();
  });

  it('refuses bad run ids, options, inputs and filters with InvalidArgumentError, storing nothing', async () => {
    const store = memoryStore();
    const rt = await createRuntime({ store, machines });
    for (const id of ['', 5, null, 'a\u0000b', 'x'.repeat(257), 'a\ud800', '.', '..', 'a\u0085', 'a\u200d']) {
      await expect(rt.start('execution', { id: id as never })).rejects.toThrow(InvalidArgumentError);
    }
    await expect(rt.start('execution', { id: '' })).rejects.toThrow(
      /^Invalid run id: expected a name of 1 to 256 printable characters, .*because it is empty, got ""\.$/,
    );
    await expect(rt.start('execution', { id: 5 as never })).rejects.toThrow(/because it is not a string, got 5\.$/);
    await expect(rt.start('execution', { input: { big: 1n } })).rejects.toThrow(
      /^Invalid input: expected a JSON value .*Do not know how to serialize a BigInt/,
    );
    await expect(rt.start('execution', { input: () => 1 })).rejects.toThrow('Invalid input: expected a JSON value');
    expect(await store.list()).toEqual([]);

    const { runId } = await rt.start('execution');
    for (const options of [
      { idempotencyKey: 5 },
      { idempotencyKey: '' },
      { actor: {} },
      { reason: 1 },
      { ifAccepted: 'yes' },
      'fast',
    ]) {
      await expect(rt.dispatch(runId, { type: 'ENQUEUE' }, options as never)).rejects.toThrow(InvalidArgumentError);
    }
    await expect(rt.dispatch(runId, { type: 'ENQUEUE' }, { actor: {} } as never)).rejects.toThrow(
      "Invalid option 'actor': expected a non-empty string, got {}.",
    );
    const errors: Error[] = [];
    rt.onError(({ error }) => errors.push(error));
    rt.send(runId, { type: 'ENQUEUE' }, { reason: 7 } as never);
    await rt.flush();
    expect(errors.map((e) => e.name)).toEqual(['InvalidArgumentError']);
    expect(await rt.history(runId)).toEqual([]);
    // null options are no options.
    expect((await rt.dispatch(runId, { type: 'ENQUEUE' }, null as never)).state).toBe('queued');

    await expect(rt.list({ status: 'running' })).rejects.toThrow(
      'Invalid filter \'status\': expected one of active, done, error, stopped, got "running".',
    );
    await expect(rt.list({ machine: 7 } as never)).rejects.toThrow(InvalidArgumentError);
    await rt.close();
  });

  it("keeps its own copy of a start input: changing the caller's object afterwards changes nothing", async () => {
    const rt = await createRuntime({ store: memoryStore(), machines, clock: new ManualClock() });
    const input = { timeoutMs: 1000, createdAt: rt.clock.now() };
    const { runId } = await rt.start('timed', { input });
    input.timeoutMs = 5;
    expect((await rt.getSnapshot(runId)).input).toEqual({ timeoutMs: 1000, createdAt: rt.clock.now() });
    expect((await rt.getSnapshot(runId)).context.deadline).toBe(rt.clock.now() + 1000);
    await rt.close();
  });

  it('reports fire-and-forget refusals on the error channel', async () => {
    const rt = await createRuntime({ store: memoryStore(), machines });
    const { runId } = await rt.start('execution');
    const errors: string[] = [];
    rt.onError(({ runId: id, event, error }) => errors.push(`${id === runId} ${event.type} ${error.name}`));
    rt.send(runId, { type: 'ENQUEUE' });
    rt.send(runId, { type: 'APPROVE' });
    rt.send(runId, { type: 'START' });
    await rt.flush();
    expect(errors).toEqual(['true APPROVE InvalidTransitionError']);
    expect((await rt.getSnapshot(runId)).state).toBe('running');
    await rt.close();
  });

  it('records the audit trail: event, time, actor, reason, states before and after', async () => {
    const clock = new ManualClock(1_000_000);
    const rt = await createRuntime({ store: memoryStore(), machines, clock });
    const { runId } = await rt.start('execution');
    clock.advance(5);
    await rt.dispatch(runId, { type: 'HOLD' }, { actor: 'policy', reason: 'required reviewers' });
    await rt.dispatch(runId, { type: 'APPROVE', at: 2_000_000 }, { actor: 'alice' });
    expect(await rt.history(runId)).toEqual([
      {
        runId,
        seq: 1,
        event: { type: 'HOLD', at: 1_000_005 },
        at: 1_000_005,
        actor: 'policy',
        reason: 'required reviewers',
        before: 'pending',
        after: 'held',
      },
      {
        runId,
        seq: 2,
        event: { type: 'APPROVE', at: 2_000_000 },
        at: 2_000_000,
        actor: 'alice',
        before: 'held',
        after: 'queued',
      },
    ]);
    await rt.close();
  });

  it('rolls back to the committed state when a commit fails, and acknowledges nothing', async () => {
    const { store, failNext } = failingStore();
    const rt = await createRuntime({ store, machines });
    const { runId } = await rt.start('execution');
    const steps: CommittedStep[] = [];
    rt.subscribe((s) => steps.push(s));
    failNext();
    await expect(rt.dispatch(runId, { type: 'ENQUEUE' })).rejects.toThrow('disk full');
    expect(steps).toEqual([]);
    expect((await rt.getSnapshot(runId)).state).toBe('pending');
    // The actor went back too: the next event applies to 'pending', not to 'queued'.
    await expect(rt.dispatch(runId, { type: 'START' })).rejects.toThrow(InvalidTransitionError);
    expect((await rt.dispatch(runId, { type: 'SKIP' })).state).toBe('skipped');
    await rt.close();
  });

  it('lists runs by machine and status', async () => {
    const rt = await createRuntime({ store: memoryStore(), machines });
    const a = await rt.start('execution');
    const b = await rt.start('execution');
    await rt.dispatch(b.runId, { type: 'SKIP' });
    expect((await rt.list({ machine: 'execution', status: 'active' })).map((r) => r.runId)).toEqual([a.runId]);
    expect((await rt.list({ status: 'done' })).map((r) => [r.runId, r.state])).toEqual([[b.runId, 'skipped']]);
    expect(await rt.list({ machine: 'timed' })).toEqual([]);
    await rt.close();
  });

  it('fires a durable timer at its deadline through the queue, and drops it if the state moved on', async () => {
    const clock = new ManualClock();
    const rt = await createRuntime({ store: memoryStore(), machines, clock });
    const late = await rt.start('timed', { input: { timeoutMs: 60_000, createdAt: clock.now() } });
    const early = await rt.start('timed', { input: { timeoutMs: 60_000, createdAt: clock.now() } });
    await rt.dispatch(early.runId, { type: 'CLAIM', worker: 'w', attempt: 1 });
    clock.advance(59_999);
    await rt.flush();
    expect((await rt.getSnapshot(late.runId)).state).toBe('waiting');
    clock.advance(1);
    await rt.flush();
    const expired = await rt.getSnapshot(late.runId);
    expect([expired.state, expired.context.expiredAt]).toEqual(['expired', late.context.deadline]);
    expect((await rt.history(late.runId)).at(-1)).toMatchObject({ actor: 'timer', event: { type: 'EXPIRE' } });
    expect((await rt.getSnapshot(early.runId)).state).toBe('claimed');
    await rt.close();
  });

  it('rejects everything after close', async () => {
    const rt = await createRuntime({ store: memoryStore(), machines });
    await rt.close();
    await expect(rt.start('execution')).rejects.toThrow('The runtime is closed');
  });
});

describe('the runtime when its store fails to answer', () => {
  it('refuses the queued events instead of leaving them waiting', async () => {
    const inner = memoryStore();
    const store: Store = {
      ...inner,
      findIdempotent: async () => {
        throw new Error('disk read failed');
      },
    };
    const rt = await createRuntime({ store, machines });
    await rt.start('execution', { id: 'r' });
    const keyed = rt.dispatch('r', { type: 'ENQUEUE' }, { idempotencyKey: 'k' });
    const after = rt.dispatch('r', { type: 'ENQUEUE' });
    await expect(keyed).rejects.toThrow('disk read failed');
    await expect(after).rejects.toThrow('disk read failed');
    expect((await rt.dispatch('r', { type: 'SKIP' })).state).toBe('skipped');
    await rt.close();
  });

  it('undoes in memory what a batch applied before a read failed, so the next event starts from the committed step', async () => {
    const inner = memoryStore();
    let failNext = false;
    const store: Store = {
      ...inner,
      findIdempotent: async (runId, key) => {
        if (failNext) {
          failNext = false;
          throw new Error('disk read failed');
        }
        return inner.findIdempotent(runId, key);
      },
    };
    const rt = await createRuntime({ store, machines });
    await rt.start('execution', { id: 'r' });
    failNext = true;
    // One batch: ENQUEUE is applied to the actor, then the keyed event's read fails, refusing both.
    const first = rt.dispatch('r', { type: 'ENQUEUE' });
    const keyed = rt.dispatch('r', { type: 'SKIP' }, { idempotencyKey: 'k' });
    await expect(first).rejects.toThrow('disk read failed');
    await expect(keyed).rejects.toThrow('disk read failed');
    expect((await rt.getSnapshot('r')).state).toBe('pending');
    // Had ENQUEUE stayed applied in memory, the run would be queued and this would commit seq 2 after a step never stored.
    const next = await rt.dispatch('r', { type: 'ENQUEUE' });
    expect(next).toMatchObject({ state: 'queued', seq: 1 });
    expect((await rt.history('r')).map((e) => e.event.type)).toEqual(['ENQUEUE']);
    await rt.close();
  });
});
