/**
 * The runtime's semantics on Restate, through `restateRuntime` against one node: typed refusals
 * decided before anything is written, idempotency keys, `ifAccepted`, the audit trail, explain, list
 * and subscribe; a lifecycle of the user's own (test/restate/article-lifecycle.ts) with its durable
 * deadline as a Restate delayed call (fired once; a deadline whose state was left fires nothing) and
 * its actors performed by the endpoint's actor host; versions and migrations across a redeployment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { InvalidTransitionError, MetadataValidationError } from '../../src/graph/index.js';
import {
  MalformedEventError,
  RunExistsError,
  UnknownMachineError,
  UnknownRunError,
  VersionMismatchError,
} from '../../src/runtime/errors.js';
import type { CommittedStep } from '../../src/runtime/run-snapshot.js';
import { AdminClient, restateEndpoint, restateRuntime, RestateSetupError } from '../../src/restate/index.js';
import { ARMED_DELAYS } from '../../src/runtime/timers/after-delays.js';
import { until } from '../support/until.js';
import { DAY } from '../fixtures/order-deadline.js';
import { article, articleActors, order, timed } from './article-lifecycle.js';
import { startRestateHost, type RestateHost } from './restate-host.js';

let host: RestateHost;
const machines = { execution: lifecycles.execution, article, timed, order };

beforeAll(async () => {
  host = await startRestateHost({ machines, actors: { article: articleActors } });
}, 120_000);

afterAll(async () => {
  await host?.stop();
});

const inAnHour = () => Date.now() + 3_600_000;

describe('refusals', () => {
  it('refuses an event the state does not take with InvalidTransitionError, and writes nothing', async () => {
    const { runtime } = host;
    await runtime.start('execution', { id: 'refused-1' });
    await runtime.dispatch('refused-1', { type: 'ENQUEUE' });
    const error = await runtime.dispatch('refused-1', { type: 'COMPLETE' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidTransitionError);
    expect(error).toMatchObject({ kind: 'conflict', state: 'queued', event: 'COMPLETE' });
    expect((error as InvalidTransitionError).accepts).toEqual(['START', 'FAIL', 'CANCEL']);
    expect((error as Error).message).toContain("cannot apply event 'COMPLETE' in state 'queued'");
    expect((await runtime.getSnapshot('refused-1')).seq).toBe(1);
    expect((await runtime.history('refused-1')).map((e) => e.event.type)).toEqual(['ENQUEUE']);
  });

  it('refuses an event whose metadata fails its guard with MetadataValidationError naming the field', async () => {
    const { runtime } = host;
    await runtime.start('article', { id: 'meta-1', input: { dueAt: inAnHour() } });
    const error = await runtime.dispatch('meta-1', { type: 'SUBMIT' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MetadataValidationError);
    expect(error).toMatchObject({ kind: 'invalid', target: 'review', missing: ['reviewer'] });
    expect((await runtime.getSnapshot('meta-1')).state).toBe('draft');
  });

  it('refuses unknown runs and machines, a taken id in any lifecycle, and malformed events before sending', async () => {
    const { runtime } = host;
    await expect(runtime.getSnapshot('no-such-run')).rejects.toBeInstanceOf(UnknownRunError);
    await expect(runtime.dispatch('no-such-run', { type: 'ENQUEUE' })).rejects.toBeInstanceOf(UnknownRunError);
    await expect(runtime.history('no-such-run')).rejects.toBeInstanceOf(UnknownRunError);
    await expect(runtime.start('nope' as never, { id: 'x-1' })).rejects.toBeInstanceOf(UnknownMachineError);
    await runtime.start('execution', { id: 'taken-1' });
    await expect(runtime.start('article', { id: 'taken-1', input: { dueAt: 1 } })).rejects.toBeInstanceOf(
      RunExistsError,
    );
    await expect(runtime.start('execution', { id: 'taken-1' })).rejects.toBeInstanceOf(RunExistsError);
    await expect(runtime.dispatch('taken-1', { type: 'xstate.init' })).rejects.toBeInstanceOf(MalformedEventError);
    expect((await runtime.getSnapshot('taken-1')).machine).toBe('execution');
  });

  it('refuses an endpoint with actors and no ingress for them to report through', () => {
    expect(() => restateEndpoint({ machines, actors: { article: articleActors }, token: false })).toThrow(
      RestateSetupError,
    );
  });

  it('drops an ifAccepted event the state does not take, committing nothing', async () => {
    const { runtime } = host;
    await runtime.start('execution', { id: 'if-1' });
    const run = await runtime.dispatch('if-1', { type: 'COMPLETE' }, { ifAccepted: true });
    expect(run.seq).toBe(0);
    expect(await runtime.history('if-1')).toEqual([]);
  });

  it("registers reads as shared handlers, which never queue behind a run's sends, and state as lazy", async () => {
    const response = await fetch(`${host.node.admin}/services/statewright-execution`);
    const service = (await response.json()) as {
      ty: string;
      enable_lazy_state?: boolean;
      handlers: Array<{ name: string; ty: string }>;
    };
    expect(service.ty).toBe('VirtualObject');
    expect(service.enable_lazy_state).toBe(true);
    expect(Object.fromEntries(service.handlers.map((h) => [h.name, h.ty]))).toEqual({
      start: 'Exclusive',
      send: 'Exclusive',
      fire: 'Exclusive',
      fireDelay: 'Exclusive',
      snapshot: 'Shared',
      history: 'Shared',
      explain: 'Shared',
      actors: 'Shared',
    });
  });
});

describe('idempotency and the audit trail', () => {
  it('applies an event with an idempotency key once and answers a repeat with the first result', async () => {
    const { runtime } = host;
    await runtime.start('execution', { id: 'idem-1' });
    const first = await runtime.dispatch('idem-1', { type: 'ENQUEUE' }, { idempotencyKey: 'k1' });
    await runtime.dispatch('idem-1', { type: 'START' });
    const again = await runtime.dispatch('idem-1', { type: 'ENQUEUE' }, { idempotencyKey: 'k1' });
    expect(again).toEqual(first);
    // Another event under the same key is the same request: its first result, nothing applied.
    const other = await runtime.dispatch('idem-1', { type: 'CANCEL' }, { idempotencyKey: 'k1' });
    expect(other.seq).toBe(1);
    expect((await runtime.history('idem-1')).map((e) => [e.event.type, e.idempotencyKey])).toEqual([
      ['ENQUEUE', 'k1'],
      ['START', undefined],
    ]);
  });

  it('keeps every event with its time, actor, reason and the states around it, in order', async () => {
    const { runtime } = host;
    await runtime.start('execution', { id: 'audit-1' });
    runtime.send('audit-1', { type: 'ENQUEUE' }, { actor: 'ci', reason: 'pushed' });
    runtime.send('audit-1', { type: 'START' }, { actor: 'agent-7' });
    await runtime.dispatch('audit-1', { type: 'SUCCEED', at: 1234 }, { actor: 'agent-7', reason: 'exit 0' });
    const history = await runtime.history('audit-1');
    expect(
      history.map(({ seq, event, actor, reason, before, after }) => ({
        seq,
        type: event.type,
        actor,
        reason,
        before,
        after,
      })),
    ).toEqual([
      { seq: 1, type: 'ENQUEUE', actor: 'ci', reason: 'pushed', before: 'pending', after: 'queued' },
      { seq: 2, type: 'START', actor: 'agent-7', reason: undefined, before: 'queued', after: 'running' },
      { seq: 3, type: 'SUCCEED', actor: 'agent-7', reason: 'exit 0', before: 'running', after: 'success' },
    ]);
    expect(history[2]!.at).toBe(1234);
    expect(history.every((e) => typeof e.at === 'number')).toBe(true);
  });

  it('explains a run from its object, lists runs through the admin query API, and tells subscribers of steps', async () => {
    const { runtime } = host;
    const steps: CommittedStep[] = [];
    const unsubscribe = runtime.subscribe((step) => steps.push(step));
    await runtime.start('execution', { id: 'watch-1' });
    await runtime.dispatch('watch-1', { type: 'ENQUEUE' }, { actor: 'ci' });
    const explanation = await runtime.explain('watch-1');
    expect(explanation).toMatchObject({
      runId: 'watch-1',
      state: 'queued',
      status: 'active',
      owner: null,
      hostedOn: { engine: 'restate', object: 'statewright-execution', key: 'watch-1' },
    });
    expect(explanation.accepts.map((a) => a.type)).toEqual(['START', 'FAIL', 'CANCEL']);
    const listed = await runtime.list({ machine: 'execution', state: 'queued' });
    expect(listed.map((r) => r.runId)).toContain('watch-1');
    expect(listed.every((r) => r.machine === 'execution' && r.state === 'queued')).toBe(true);
    await until('the subscriber to hear of watch-1 ENQUEUE', () =>
      steps.some((s) => s.runId === 'watch-1' && s.event?.type === 'ENQUEUE'),
    );
    const mine = steps.filter((s) => s.runId === 'watch-1');
    expect(mine.map((s) => [s.seq, s.event?.type ?? null, s.after])).toEqual([
      [0, null, 'pending'],
      [1, 'ENQUEUE', 'queued'],
    ]);
    unsubscribe();
  });
});

describe('a lifecycle of the config: deadlines and actors', () => {
  it('fires a durable deadline once, as a delayed call, with actor timer', async () => {
    const { runtime } = host;
    await runtime.start('article', { id: 'due-1', input: { dueAt: Date.now() + 800 } });
    await runtime.dispatch('due-1', { type: 'SUBMIT', reviewer: 'ann' });
    await until('the OVERDUE deadline to fire', async () => (await runtime.getSnapshot('due-1')).state === 'overdue');
    const history = await runtime.history('due-1');
    const overdue = history.filter((e) => e.event.type === 'OVERDUE');
    expect(overdue).toHaveLength(1);
    expect(overdue[0]).toMatchObject({ actor: 'timer', before: 'review', after: 'overdue' });
  });

  it('fires nothing for a deadline whose state was left before it was due', async () => {
    const { runtime, node } = host;
    await runtime.start('article', { id: 'due-2', input: { dueAt: Date.now() + 600 } });
    await runtime.dispatch('due-2', { type: 'SUBMIT', reviewer: 'ann' });
    await runtime.dispatch('due-2', { type: 'APPROVE' });
    const admin = new AdminClient(node.admin);
    await until('the left deadline to be delivered', async () => {
      const rows = await admin.query<{ status: string }>(
        `SELECT status FROM sys_invocation WHERE target_service_key = 'due-2' AND target_handler_name = 'fire'`,
      );
      return rows.length === 1 && rows[0]!.status === 'completed';
    });
    // NOTIFIED may come before APPROVE or be refused after it: the deadline's event is what must not be there.
    const types = (await runtime.history('due-2')).map((e) => e.event.type).filter((type) => type !== 'NOTIFIED');
    expect(types).toEqual(['SUBMIT', 'APPROVE']);
    expect((await runtime.getSnapshot('due-2')).state).toBe('approved');
  });

  it("performs the run's actors in the worker: a callback actor's report and a promise actor's result", async () => {
    const { runtime } = host;
    await runtime.start('article', { id: 'ship-1', input: { dueAt: inAnHour() } });
    await runtime.dispatch('ship-1', { type: 'SUBMIT', reviewer: 'bob' });
    await until('notify to report', async () => (await runtime.getSnapshot('ship-1')).context.notified === 1);
    await runtime.dispatch('ship-1', { type: 'APPROVE' });
    await runtime.dispatch('ship-1', { type: 'SHIP' });
    await until('ship to finish', async () => (await runtime.getSnapshot('ship-1')).state === 'shipped');
    const run = await runtime.getSnapshot('ship-1');
    expect(run.context.url).toBe('https://example.test/ship-1/the%20article');
    const history = await runtime.history('ship-1');
    expect(history.map((e) => [e.event.type, e.actor ?? null])).toEqual([
      ['SUBMIT', null],
      ['NOTIFIED', 'notify'],
      ['APPROVE', null],
      ['SHIP', null],
      ['xstate.done.actor.ship', 'ship'],
    ]);
    expect(host.endpoint.actorHost?.size).toBe(0);
  });
});

describe('XState `after` delays', () => {
  it('fires an `after` delay once as a delayed call, and one whose state was left and entered again only at its new time', async () => {
    const { runtime } = host;
    await runtime.start('timed', { id: 'after-1' });
    await runtime.start('timed', { id: 'after-2' });
    const left = await runtime.dispatch('after-2', { type: 'AWAY' });
    const back = await runtime.dispatch('after-2', { type: 'BACK', at: left.updatedAt + 400 });
    await until('both delays to fire', async () =>
      (await Promise.all(['after-1', 'after-2'].map((id) => runtime.getSnapshot(id)))).every((r) => r.state === 'late'),
    );
    const one = await runtime.history('after-1');
    expect(one.map((e) => [e.event.type, e.actor])).toEqual([['xstate.after.600.timed.waiting', 'xstate']]);
    const two = await runtime.history('after-2');
    expect(two.map((e) => e.event.type)).toEqual(['AWAY', 'BACK', 'xstate.after.600.timed.waiting']);
    // At the delay counted from BACK, not from the start: the first one found its state left and re-entered.
    expect(two[2]!.at).toBe(back.updatedAt + 600);
  });
  it('armed on day 0, an event on day 29 and a restart of the worker: fires on day 30', async () => {
    // The client's days run 30 days (less 8 s) behind the worker's clock, so that day 30 comes 8 s from now.
    const behind = 30 * DAY - 8_000;
    const client = restateRuntime({
      ingress: host.node.ingress,
      admin: host.node.admin,
      token: host.node.token,
      clock: { now: () => Date.now() - behind, setTimeout, clearTimeout },
    });
    const admin = new AdminClient(host.node.admin);
    const restarted = restateEndpoint({
      machines,
      actors: { article: articleActors },
      ingress: host.node.ingress,
      token: host.node.token,
    });
    try {
      const started = await client.start('order', { id: 'order-1' });
      const day0 = started.createdAt;
      const armed = (snapshot: unknown) => Object.values((snapshot as Record<string, object>)[ARMED_DELAYS] ?? {});
      expect(armed(started.snapshot)).toEqual([day0 + 30 * DAY]);
      const noted = await client.dispatch('order-1', { type: 'NOTE', at: day0 + 29 * DAY });
      expect(armed(noted.snapshot)).toEqual([day0 + 30 * DAY]);
      // The worker restarted: another endpoint takes the run objects' calls from here.
      const listening = await restarted.listen(0);
      try {
        await admin.register(listening.url);
        await until('the delay to fire', async () => (await client.getSnapshot('order-1')).state === 'cancelled');
        const history = await client.history('order-1');
        expect(history.map((e) => [e.event.type, e.at])).toEqual([
          ['NOTE', day0 + 29 * DAY],
          [expect.stringMatching(/^xstate\.after\./), day0 + 30 * DAY],
        ]);
      } finally {
        await admin.register(host.listening.url);
        await listening.close();
      }
    } finally {
      await client.close();
    }
  });
});

describe('versions and migrations', () => {
  it('migrates a run stored by v1 when v2 with a migration is deployed, and refuses a version it has no migration for', async () => {
    const { runtime, node } = host;
    await runtime.start('execution', { id: 'ver-1' });
    const admin = new AdminClient(node.admin);
    const redeploy = async (version: number, migrations?: Record<number, (s: any) => any>) => {
      const endpoint = restateEndpoint({
        machines: { ...machines, execution: { ...lifecycles.execution, version, ...(migrations && { migrations }) } },
        actors: { article: articleActors },
        ingress: node.ingress,
        token: node.token,
      });
      const listening = await endpoint.listen(0);
      await admin.register(listening.url);
      return listening;
    };
    const v2 = await redeploy(2, { 1: (s) => ({ ...s, context: { ...s.context, migrated: true } }) });
    try {
      const run = await runtime.dispatch('ver-1', { type: 'ENQUEUE' });
      expect(run).toMatchObject({ version: 2, state: 'queued' });
      expect(run.context.migrated).toBe(true);
      const v3 = await redeploy(3);
      try {
        const error = await runtime.dispatch('ver-1', { type: 'START' }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(VersionMismatchError);
        expect(error).toMatchObject({ storedVersion: 2, currentVersion: 3 });
        expect((await runtime.getSnapshot('ver-1')).seq).toBe(1);
      } finally {
        // Back to the host's own endpoint for the tests after this one.
        await admin.register(host.listening.url);
        await v3.close();
      }
    } finally {
      await v2.close();
    }
  });
});
