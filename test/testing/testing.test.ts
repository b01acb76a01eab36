/**
 * `statewright/testing` on machines a user could write: the paths as data, each driven through the
 * runtime on SQLite beside plain XState with a crash at every commit, and the planted faults it must
 * find, each on the shortest path that shows it. The built-in lifecycles: execution and codon-run
 * whole, review-loop on a bounded sample (its whole run, and the task's, are `statewright test`'s
 * and bench/testing.bench.ts's: tens of seconds each).
 */
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { everyPath, failureText, shortestFailures, testLifecycle } from '../../src/testing/index.js';
import { dated, mapped, order, pay, payWithLargeEvent, roles } from './machines.js';

describe('everyPath', () => {
  it('gives paths as data that take every transition: parallel regions, a history state, a 30-day after, an actor done and failed', () => {
    const set = everyPath(order);
    expect(set.uncovered).toEqual([]);
    expect(set.unbuildable).toEqual([]);
    const descriptions = set.paths.map((p) => p.description);
    expect(descriptions.some((d) => d.includes('RESUME'))).toBe(true);
    expect(descriptions.some((d) => d.includes('xstate.after.2592000000.order.held'))).toBe(true);
    expect(descriptions.some((d) => d.startsWith('xstate.error.actor.'))).toBe(true);
    // NOTE's payload is built from its event schema.
    const note = set.paths.flatMap((p) => p.events).find((e) => e.type === 'NOTE');
    expect(note).toMatchObject({ type: 'NOTE', note: 'x' });
    // Data: the predicted state after the start and after each event.
    for (const path of set.paths) expect(path.states).toHaveLength(path.events.length + 1);
    expect(JSON.parse(JSON.stringify(set.paths))).toHaveLength(set.paths.length);
  });

  it('reports an event it cannot build (a role guard with no testEvents), not skipping it silently', () => {
    expect(everyPath(roles).unbuildable).toEqual([
      { type: 'PUBLISH', state: 'draft', reason: expect.stringContaining("'editor'") },
    ]);
  });

  it('bounds the paths by maxPaths and says how many were left out', () => {
    const all = everyPath(order).paths.length;
    const set = everyPath(order, { maxPaths: 3 });
    expect(set.paths).toHaveLength(3);
    expect(set.truncated).toBe(all - 3);
  });
});

describe('testLifecycle', { timeout: 60_000 }, () => {
  it('passes on a machine with parallel regions, history and an after, stub actors answering as each path needs', async () => {
    const report = await testLifecycle(order, { stubActors: true }).run();
    expect(report.results.filter((r) => r.failure).map((r) => failureText('order', r))).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.summary.paths).toBe(report.results.length);
    // Two restores per event (before and after it is durable), one per start, delay and answer.
    expect(report.summary.restores).toBeGreaterThan(report.summary.paths * 2);
    expect(report.results.every((r) => !r.stopped)).toBe(true);
  });

  it('finds a Date in the context that a guard reads after a restore, on the shortest path, and only with the crashes', async () => {
    const report = await testLifecycle(dated).run();
    const [fault, ...others] = shortestFailures(report.results);
    expect(others).toEqual([]);
    expect(fault!.path.description).toBe('OPEN → CLOSE');
    expect(fault!.failure).toMatchObject({ step: 2, event: 'CLOSE', check: 'refusal' });
    expect(fault!.failure!.statewright).toContain('getTime is not a function');
    expect(failureText('dated', fault!)).toContain('path:        start → OPEN → CLOSE');
    // Without a restore the runtime keeps the Date in memory, and the path passes: the crash is what finds it.
    expect((await testLifecycle(dated, { crash: false }).run()).ok).toBe(true);
  });

  it('finds a Map in the context that a guard reads after a restore, on the shortest path, and only with the crashes', async () => {
    const report = await testLifecycle(mapped).run();
    const [fault, ...others] = shortestFailures(report.results);
    expect(others).toEqual([]);
    expect(fault!.path.description).toBe('OPEN → CLOSE');
    expect(fault!.failure).toMatchObject({ step: 2, event: 'CLOSE' });
    expect(fault!.failure!.statewright).toContain('has is not a function');
    expect((await testLifecycle(mapped, { crash: false }).run()).ok).toBe(true);
  });

  it('finds an event schema that refuses a payload the machine takes', async () => {
    // Built from the schema, no payload takes the guarded transition: it is reported, with the path to it.
    const set = everyPath(pay);
    expect(set.uncovered).toContainEqual({ transition: 'open --PAY--> review', pathToSource: '(initial)' });
    // Given the payload, the schema refuses what the machine takes: the failure names both.
    const report = await testLifecycle(payWithLargeEvent).run();
    const [fault] = shortestFailures(report.results);
    expect(fault!.failure).toMatchObject({ step: 1, event: 'PAY', check: 'schema' });
    expect(fault!.failure!.statewright).toContain('amount');
    expect(fault!.path.description).toBe('PAY → APPROVE');
  });

  it('passes on the built-in execution and codon-run lifecycles whole, and review-loop on a bounded sample', async () => {
    for (const [name, maxPaths] of [
      ['execution', undefined],
      ['codon-run', undefined],
      ['review-loop', 6],
    ] as const) {
      const report = await testLifecycle(lifecycles[name], {
        name,
        simplePathLimit: 0,
        ...(maxPaths && { maxPaths }),
      }).run();
      expect(
        report.results.filter((r) => r.failure).map((r) => failureText(name, r)),
        name,
      ).toEqual([]);
      expect(report.uncovered, name).toEqual([]);
      expect(report.unbuildable, name).toEqual([]);
    }
  });
});
