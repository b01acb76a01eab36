/**
 * One path driven through statewright's real runtime on a real store and, beside it, through plain
 * XState (`createActor` on a simulated clock, the same events), compared after every step on the
 * state value, context, children, status and output. With `crash`, the host dies at every commit
 * (`dyingStore`): at an event, once before the commit is durable (the restored run must be the one
 * before the step, and the event is sent again) and once after (the restored run must be the one
 * after it); at a start, a delay or an actor's answer, after. Each time a new host restores the run
 * from the store and the path goes on from there. At the end, `verify` replays the run's log.
 */
import {
  createActor,
  SimulatedClock,
  waitFor,
  type AnyActorLogic,
  type AnyActorRef,
  type AnyMachineSnapshot,
  type EventObject,
} from 'xstate';
import type { Lifecycle } from '../../machines/lifecycle.js';
import { ManualClock } from '../actor-contract/clock.js';
import { StatewrightError } from '../errors.js';
import type { ActorFactory } from '../actor-contract/run-handle.js';
import { InvalidTransitionError } from '../graph/invalid-transition-error.js';
import { MetadataValidationError } from '../graph/metadata-guard.js';
import { verifyRun } from '../runtime/replay.js';
import type { RuntimeError } from '../runtime/channels.js';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import type { Store } from '../stores/store.js';
import { delayOf } from './delay-of.js';
import { dyingStore } from './dying-store.js';
import type { TestPath } from './every-path.js';
import { seenDifferences, seenOf, type Seen } from './seen.js';
import { actorAnswer, StubActors } from './stub-actors.js';

/** Where and how a path went wrong: the step (0 is the start), what XState did and what statewright did. */
export interface PathFailure {
  readonly step: number;
  /** The event of that step (`start` for the start, `verify` for the replay at the end). */
  readonly event: string;
  /** `step`: the two hosts differ after it; `restore`: the run restored after a crash differs from the one committed; `refusal`: one host took an event the other refused; `schema`: the event schema refuses a payload the machine takes; `verify`; `error`. */
  readonly check: 'step' | 'restore' | 'refusal' | 'schema' | 'verify' | 'error';
  readonly xstate: Seen | string;
  readonly statewright: Seen | string;
  /** The parts that differ (value, context, children, status, output). */
  readonly differs?: readonly string[];
  readonly message: string;
}

export interface PathResult {
  readonly path: TestPath;
  readonly runId: string;
  /** Steps taken (the start included). */
  readonly steps: number;
  /** Runs restored from the store after a crash. */
  readonly restores: number;
  readonly failure?: PathFailure;
  /** A step that cannot be driven from outside (an XState event no clock move or actor answer makes): the path stopped there, passed so far. */
  readonly stopped?: { readonly step: number; readonly reason: string };
  readonly ms: number;
}

export interface DriveSetup {
  readonly name: string;
  readonly lifecycle: Lifecycle;
  /** The store of this path: `open` again after each crash. */
  readonly store: { open(): Promise<Store> };
  readonly crash: boolean;
  /** Actor stand-ins by name (`StubActors`) for these names, on both hosts. */
  readonly stubbed: readonly string[];
  /** The real actors statewright's host runs (the config's), by name. */
  readonly actors: Readonly<Record<string, ActorFactory>>;
  /** A run already in the store (restored under the current definition): the path goes on from it instead of starting one. */
  readonly existing?: { readonly snapshot: unknown; readonly verify: boolean };
  /** How long an actor has to answer (real time) before the path fails; default 5 000 ms. */
  readonly answerTimeoutMs?: number;
}

/**
 * Pids above Linux's largest pid_max, one per host: a host that died is then a gone process to the
 * next (two hosts of one pid in one process would count as alive while neither is closed).
 */
const DEAD_PID = 2 ** 22 + 1;
const isRefusal = (error: unknown) =>
  error instanceof InvalidTransitionError || error instanceof MetadataValidationError;
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A check of the path failed: thrown to stop driving it, caught by `drivePath`, which reports the failure. */
class Failed extends StatewrightError {
  readonly kind = 'invalid';
  override readonly name = 'Failed';
  constructor(readonly failure: PathFailure) {
    super(failure.message);
  }
}

interface Host {
  readonly runtime: Runtime;
  readonly dying: ReturnType<typeof dyingStore>;
  readonly errors: RuntimeError[];
}

export async function drivePath(setup: DriveSetup, path: TestPath, runId: string): Promise<PathResult> {
  const started = performance.now();
  const clock = new ManualClock();
  const simulated = new SimulatedClock();
  const xsStubs = new StubActors();
  const rtStubs = new StubActors();
  const { lifecycle, name } = setup;
  const testActors = lifecycle.testActors ?? {};
  const xsActors: Record<string, AnyActorLogic> = {
    ...Object.fromEntries(setup.stubbed.map((actor) => [actor, xsStubs.logic])),
    ...testActors,
  };
  const rtActors: Record<string, ActorFactory> = {
    ...setup.actors,
    ...Object.fromEntries(setup.stubbed.map((actor) => [actor, () => rtStubs.logic])),
    ...Object.fromEntries(Object.entries(testActors).map(([actor, logic]) => [actor, () => logic])),
  };
  // Restored as after a restart, without the lifecycle's recovery hook: it would add events XState never sees.
  const { recover: _, ...hosted } = lifecycle;
  const machines = { [name]: hosted };
  let hosts = 0;
  const open = async (): Promise<Host> => {
    const dying = dyingStore(await setup.store.open(), 'after-durable', 'at-commit');
    const errors: RuntimeError[] = [];
    const runtime = await createRuntime({
      store: dying.store,
      machines,
      clock,
      actors: { [name]: rtActors },
      owner: { id: `statewright-test-${++hosts}`, pid: DEAD_PID + hosts, pidStart: 'gone' },
      hibernate: false,
      // This run's only: a copied store holds others, which may be set aside.
      onError: (error) => error.runId === runId && errors.push(error),
    });
    return { runtime, dying, errors };
  };

  const xs: AnyActorRef = createActor(lifecycle.machine.provide({ actors: xsActors }), {
    clock: simulated,
    ...(path.input !== undefined && { input: path.input }),
    ...(setup.existing && { snapshot: setup.existing.snapshot as never }),
  });
  xs.subscribe({ error: () => {} });
  const xsSeen = () => seenOf(xs.getPersistedSnapshot());
  let host = await open();
  const rtSeen = async () => seenOf((await host.runtime.getSnapshot(runId)).snapshot);
  let restores = 0;
  let step = 0;
  let event = 'start';

  const fail = (check: PathFailure['check'], xstate: Seen | string, statewright: Seen | string, why: string) => {
    throw new Failed({ step, event, check, xstate, statewright, message: why });
  };
  const compare = async (check: 'step' | 'restore', expected: Seen = xsSeen()) => {
    const actual = await rtSeen();
    const differs = seenDifferences(expected, actual);
    if (differs.length)
      throw new Failed({
        step,
        event,
        check,
        xstate: expected,
        statewright: actual,
        differs,
        message:
          check === 'restore'
            ? `the run restored after a crash differs from the one committed in ${differs.join(', ')}`
            : `statewright and XState differ in ${differs.join(', ')}`,
      });
  };
  /** Kills the host at its next commit, made by `commit`; resolves once the death caught it, and a new host is up. */
  const crashAt = async (death: 'before-durable' | 'after-durable', commit: () => Promise<unknown>) => {
    host.dying.die(death);
    const outcome = await Promise.race([
      host.dying.deathReached.then(() => ({ died: true as const })),
      commit().then(
        () => ({ died: false as const, error: undefined }),
        (error: unknown) => ({ died: false as const, error }),
      ),
    ]);
    if (!outcome.died) return outcome;
    host = await open();
    restores++;
    return outcome;
  };
  /** Resolves when the runtime has committed past `seq` (a delay fired, an actor answered). */
  const committedPast = (seq: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), setup.answerTimeoutMs ?? 5000);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        unsubscribe();
        resolve(ok);
      };
      const unsubscribe = host.runtime.subscribe((s) => s.runId === runId && s.seq > seq && done(true));
      void host.runtime.getSnapshot(runId).then((s) => s.seq > seq && done(true));
    });

  try {
    // The start.
    xs.start();
    if (setup.existing) {
      event = 'restore';
      await compare('restore');
    } else if (setup.crash) {
      const outcome = await crashAt('after-durable', () => host.runtime.start(name, { id: runId, input: path.input }));
      if (!outcome.died)
        fail('error', xsSeen(), message(outcome.error), `statewright did not start the run: ${message(outcome.error)}`);
      await compare('restore');
    } else {
      await host.runtime
        .start(name, { id: runId, input: path.input })
        .catch((error: unknown) =>
          fail('error', xsSeen(), message(error), `statewright did not start the run: ${message(error)}`),
        );
      await compare('step');
    }

    for (const next of path.events) {
      step++;
      event = next.type;
      const before = xs.getSnapshot() as AnyMachineSnapshot;
      const delay = delayOf(next.type, before);
      const answer = actorAnswer(next);
      if (delay !== undefined) await advance(delay);
      else if (answer) {
        if (!(await answerActor(answer))) return result({ step, reason: `'${next.type}': no actor of that id runs` });
      } else if (next.type.startsWith('xstate.'))
        return result({ step, reason: `'${next.type}' is XState's own event, which no test can send` });
      else await send({ at: clock.now(), ...next } as EventObject, before);
      await compare('step');
    }
    await host.runtime.flush();
    // A migrated run's log was written by the earlier definition: replaying it through this one proves nothing.
    const verification =
      setup.existing?.verify === false ? undefined : await verifyRun(host.runtime.store, host.runtime.machines, runId);
    if (verification && !verification.ok) {
      event = 'verify';
      fail(
        'verify',
        xsSeen(),
        JSON.stringify(verification.mismatches),
        `the run's log does not replay to what the store holds: ${verification.mismatches.map((m) => JSON.stringify(m)).join('; ')}`,
      );
    }
    return result();
  } catch (error) {
    if (error instanceof Failed) return result(undefined, error.failure);
    return result(undefined, {
      step,
      event,
      check: 'error',
      xstate: xsSeen(),
      statewright: message(error),
      message: `the path could not go on: ${message(error)}`,
    });
  } finally {
    xs.stop();
    await host.runtime.close().catch(() => {});
  }

  function result(stopped?: PathResult['stopped'], failure?: PathFailure): PathResult {
    const errors = host.errors.filter((e) => !isRefusal(e.error));
    const runtimeError =
      !failure && errors.length
        ? {
            step,
            event,
            check: 'error' as const,
            xstate: xsSeen(),
            statewright: message(errors[0]!.error),
            message: `statewright reported an error: ${message(errors[0]!.error)}`,
          }
        : undefined;
    const found = failure ?? runtimeError;
    return {
      path,
      runId,
      steps: step + 1,
      restores,
      ...(found && { failure: found }),
      ...(stopped && { stopped }),
      ms: performance.now() - started,
    };
  }

  async function send(sent: EventObject, before: AnyMachineSnapshot): Promise<void> {
    const taken = before.can(sent);
    const schema = lifecycle.eventSchemas?.[sent.type];
    if (schema && taken) {
      const { type: _t, at: _a, ...payload } = sent as EventObject & { at?: unknown };
      const parsed = schema.safeParse(payload);
      if (!parsed.success)
        fail(
          'schema',
          `took ${JSON.stringify(sent)}`,
          `its event schema refuses it: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ')}`,
          `the event schema of '${sent.type}' refuses a payload the machine takes`,
        );
    }
    if (setup.crash && taken) {
      const seen = xsSeen();
      const dying = await crashAt('before-durable', () => host.runtime.dispatch(runId, sent));
      if (!dying.died) refused(sent, dying.error, true);
      await compare('restore', seen);
      xs.send(sent);
      const durable = await crashAt('after-durable', () => host.runtime.dispatch(runId, sent));
      if (!durable.died) refused(sent, durable.error, true);
      await compare('restore');
      return;
    }
    const seq = (await host.runtime.getSnapshot(runId)).seq;
    xs.send(sent);
    const error = await host.runtime.dispatch(runId, sent).then(
      () => undefined,
      (e: unknown) => e ?? new Error('refused'),
    );
    if (error === undefined && !taken)
      fail(
        'refusal',
        `ignored ${JSON.stringify(sent)}`,
        'took it',
        `statewright took '${sent.type}', which XState ignores here`,
      );
    if (error !== undefined) {
      if (taken || !isRefusal(error)) refused(sent, error, taken);
      const after = (await host.runtime.getSnapshot(runId)).seq;
      if (after !== seq)
        fail(
          'refusal',
          'ignored it',
          `refused it yet committed (seq ${seq} -> ${after})`,
          `statewright refused '${sent.type}' but committed`,
        );
    }
  }

  function refused(sent: EventObject, error: unknown, taken: boolean): never {
    return fail(
      taken ? 'refusal' : 'error',
      taken ? `took ${JSON.stringify(sent)}` : `ignored ${JSON.stringify(sent)}`,
      error === undefined ? 'took it without committing' : `refused it: ${message(error)}`,
      taken
        ? `statewright refused '${sent.type}', which XState takes here`
        : `statewright failed on '${sent.type}': ${message(error)}`,
    );
  }

  async function advance(ms: number): Promise<void> {
    const seq = (await host.runtime.getSnapshot(runId)).seq;
    const xsBefore = xs.getSnapshot();
    simulated.increment(ms);
    const moved = xs.getSnapshot() !== xsBefore;
    if (setup.crash && moved) {
      host.dying.die('after-durable');
      const fired = Promise.race([host.dying.deathReached.then(() => true), committedPast(seq)]);
      clock.advance(ms);
      if (!(await fired)) return;
      host = await open();
      restores++;
      await compare('restore');
      return;
    }
    const fired = moved ? committedPast(seq) : Promise.resolve(true);
    clock.advance(ms);
    await fired;
    await host.runtime.flush();
  }

  async function answerActor({ id, answer }: NonNullable<ReturnType<typeof actorAnswer>>): Promise<boolean> {
    const seq = (await host.runtime.getSnapshot(runId)).seq;
    const xsBefore = xs.getSnapshot();
    if (xsStubs.has(id)) {
      xsStubs.answer(id, answer);
      await waitFor(xs, (s) => s !== xsBefore, { timeout: setup.answerTimeoutMs ?? 5000 }).catch(() => {});
      const started = await Promise.race([rtStubs.started(id).then(() => true), committedPast(seq).then(() => false)]);
      if (!started) fail('step', xsSeen(), await rtSeen(), `actor '${id}' never started in statewright`);
    } else {
      // A real actor: the path waits for it to answer as the path says, on both hosts.
      const moved = await waitFor(xs, (s) => s !== xsBefore, { timeout: setup.answerTimeoutMs ?? 5000 }).then(
        () => true,
        () => false,
      );
      if (!moved) return false;
    }
    if (setup.crash) {
      host.dying.die('after-durable');
      const committed = Promise.race([host.dying.deathReached.then(() => true), committedPast(seq)]);
      rtStubs.answer(id, answer);
      if (!(await committed))
        fail('step', xsSeen(), await rtSeen(), `statewright committed nothing when '${id}' answered`);
      host = await open();
      restores++;
      await compare('restore');
      return true;
    }
    const committed = committedPast(seq);
    rtStubs.answer(id, answer);
    if (!(await committed))
      fail('step', xsSeen(), await rtSeen(), `statewright committed nothing when '${id}' answered`);
    await host.runtime.flush();
    return true;
  }
}
