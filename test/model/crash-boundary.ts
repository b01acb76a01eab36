/**
 * One lifecycle's boundaries, all crashed on one store with one kind of death, and checked after a
 * restart: the in-process suite (crash-at-every-boundary.test.ts) and its SIGKILL sample
 * (crash-boundary-kill.test.ts) differ only in how the host dies.
 *
 * Every boundary is a run of its own. They advance in lockstep, one commit per round, started so
 * that all of them reach their own boundary in the last round: the runtime's group commit then
 * hands all those commits to the store as one transaction, and the host dies on it (`dyingStore`).
 * A dead host's runs are each at their own boundary, as they would be on a busy host that was
 * killed. A fresh runtime over the same files restores them all at once, applying the lifecycles'
 * recovery hooks, and each is checked, then driven on to the end of its path.
 */
import { setImmediate as tick } from 'node:timers/promises';
import { createActor, fromCallback, type AnyMachineSnapshot, type AnyStateMachine, type EventObject } from 'xstate';
import { lifecycles, type LifecycleName } from '../../machines/index.js';
import { InvalidTransitionError, MetadataValidationError } from '../../src/graph/index.js';
import { createRuntime, ManualClock, verifyRun, type Runtime, type RuntimeError } from '../../src/runtime/index.js';
import type { Store } from '../../src/stores/index.js';
import { dyingStore, type Death } from '../../src/testing/dying-store.js';
import { EffectLedger, effectActors, effectKey } from '../support/recording-actors.js';
import type { Boundary, PathPlan } from './commit-boundaries.js';

/** A pid above Linux's largest pid_max: the dead host's, which no living process can have. */
const DEAD_PID = 2 ** 22 + 1;
const DEAD = 'dead-host';
const RESTARTED = 'restarted-host';

/**
 * What each lifecycle's recovery hook must do to a run restored from a dead host (machines/*\/recover.ts,
 * docs/runtime.md, "Recovery"), written out here as the oracle: the one event it applies (none: the run
 * goes on as it was), and the state that must follow where the seed names it (otherwise the
 * state the machine gives for that event, checked all the same).
 */
export const recoveryRule: Record<
  LifecycleName,
  (snapshot: AnyMachineSnapshot) => { type: string; state?: string } | undefined
> = {
  execution: () => undefined,
  'review-loop': () => undefined,
  // A check in progress died with its host: the task leaves Checking, interrupted.
  task: (s) => (s.matches({ Active: { Working: { Checking: 'Running' } } }) ? { type: 'check_failed' } : undefined),
  // Every session not yet ended is orphaned, and fails.
  session: (s) => (s.status === 'active' ? { type: 'SESSION_ORPHANED', state: 'failed' } : undefined),
  // Every codon not yet ended crashed with its host ("Server crashed").
  codon: (s) => (s.status === 'active' ? { type: 'CodonTransitioned', state: 'failed' } : undefined),
  // A run still running crashed.
  'codon-run': (s) => (s.matches('running') ? { type: 'RunCrashed', state: 'crashed' } : undefined),
};

export interface BoundaryTally {
  /** Boundaries crashed and checked. */
  boundaries: number;
  /** Of which the recovery hook decided the outcome, and of which the run went on to its path's end. */
  recovered: number;
  continued: number;
  /** Side effects (actor starts) checked: made by the dead host, adopted and made by the restarted one. */
  effects: number;
}

export interface StoreUnderTest {
  /** Opens the store at `location` as a new process would (called twice per location: before and after the death). */
  open(location: string): Store | Promise<Store>;
  /** A fresh location (a file, a folder, a schema); `dispose` removes it. */
  location(label: string): string | Promise<string>;
  dispose?(location: string): Promise<void>;
}

const sorted = (keys: readonly string[]) => [...keys].sort();
/** `a` without one occurrence of each of `b`. */
function without(a: readonly string[], b: readonly string[]): string[] {
  const rest = [...a];
  for (const key of b) {
    const i = rest.indexOf(key);
    if (i >= 0) rest.splice(i, 1);
  }
  return rest;
}

/** A pure actor restored from `snapshot` after taking `events`: its state, and the effects it has running (what a restarted host should have going). */
function restoredAfter(
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
  events: EventObject[],
): { value: unknown; running: string[] } {
  const running: string[] = [];
  const actors = Object.fromEntries(
    effectActors(machine).map((name) => [
      name,
      fromCallback<EventObject, unknown>(({ input }) => {
        const key = effectKey(name, input);
        running.push(key);
        return () => void running.splice(running.indexOf(key), 1);
      }),
    ]),
  );
  const actor = createActor(machine.provide({ actors }), { snapshot: machine.getPersistedSnapshot(snapshot) as never });
  actor.start();
  for (const event of events) actor.send(event);
  const result = { value: actor.getSnapshot().value, running: [...running] };
  actor.stop();
  return result;
}

/** Sends events the machine refuses where the run is: each must be refused. */
export async function playRefused(runtime: Runtime, runId: string, events: EventObject[]): Promise<void> {
  for (const event of events) {
    try {
      await runtime.dispatch(runId, event);
    } catch (error) {
      if (error instanceof InvalidTransitionError || error instanceof MetadataValidationError) continue;
      throw error;
    }
    throw new Error(`run ${runId}: '${event.type}' was accepted, but the machine refuses it there`);
  }
}

/** What a run's plan is played from. */
type Rounds = Pick<PathPlan, 'rounds' | 'input'>;

/** Makes the commit of round `round`: the start, or the event the machine takes. */
export function commitRound(
  runtime: Runtime,
  runId: string,
  name: string,
  plan: Rounds,
  round: number,
): Promise<unknown> {
  const commits = plan.rounds[round]!.commits;
  return commits === 'start' ? runtime.start(name, { id: runId, input: plan.input }) : runtime.dispatch(runId, commits);
}

/** Plays round `round` of a run's plan: its refused events, then the one that commits. */
export async function playRound(
  runtime: Runtime,
  runId: string,
  name: string,
  plan: Rounds,
  round: number,
): Promise<void> {
  await playRefused(runtime, runId, plan.rounds[round]!.refused);
  await commitRound(runtime, runId, name, plan, round);
}

/** Which commits a death caught, by run: the seq each would have made, and whether it was written. */
export type Caught = ReadonlyMap<string, { seq: number; written: boolean }>;

/** What a way of dying is given: the runs to drive to their boundaries, and where their effects go. */
export interface Dying {
  readonly name: LifecycleName;
  readonly boundaries: readonly Boundary[];
  readonly death: Death;
  readonly kind: StoreUnderTest;
  readonly location: string;
  readonly ledger: EffectLedger;
  /** The dead host's name in the ledger. */
  readonly host: string;
  runIdOf(boundary: Boundary): string;
}

/**
 * The in-process death. The hosts that die drive every run in lockstep, each reaching its boundary
 * in the last round. Two hosts, because a start reaches the group commit sooner than an event
 * does, and each host's last round must be a single batch: the one it dies on.
 */
export async function dieInProcess({
  name,
  boundaries,
  death,
  kind,
  location,
  ledger,
  host: dead,
  runIdOf,
}: Dying): Promise<Caught> {
  const inner = await kind.open(location);
  const lastRound = async (group: readonly Boundary[], hostId: string) => {
    const dying = dyingStore(inner, death);
    const host = await createRuntime({
      store: dying.store,
      machines: lifecycles,
      clock: new ManualClock(),
      actors: ledger.actorsFor(dead),
      owner: { id: hostId, pid: DEAD_PID, pidStart: 'gone' },
      recover: false,
    });
    const last = Math.max(...group.map((b) => b.commit));
    for (let round = 0; round < last; round++) {
      const due = group.filter((b) => round >= last - b.commit);
      await Promise.all(due.map((b) => playRound(host, runIdOf(b), name, b.plan, round - (last - b.commit))));
    }
    await Promise.all(group.map((b) => playRefused(host, runIdOf(b), b.plan.rounds[b.commit]!.refused)));
    dying.die();
    // All in one turn, so the group commit takes them as one batch. The dead host never answers:
    // an answer shows as a commit the death did not catch.
    for (const b of group) commitRound(host, runIdOf(b), name, b.plan, b.commit).catch(() => {});
    await dying.deathReached;
    return dying.caught;
  };
  const starts = boundaries.filter((b) => b.commit === 0);
  const events = boundaries.filter((b) => b.commit > 0);
  const caught = new Map([
    ...(starts.length ? await lastRound(starts, `${dead}-starting`) : []),
    ...(events.length ? await lastRound(events, dead) : []),
  ]);
  // What the OS does for a killed process: its files and connections are let go.
  await inner.close();
  return caught;
}

/**
 * Crashes every boundary of lifecycle `name` on a fresh location of the store, with `death` (in
 * process unless `die` says otherwise), and checks each after a restart. Returns what was checked,
 * and every failure found (never throws for a failed check, so one run shows them all).
 */
export async function crashBoundaries(
  name: LifecycleName,
  boundaries: readonly Boundary[],
  death: Death,
  kind: StoreUnderTest,
  die: (dying: Dying) => Promise<Caught> = dieInProcess,
): Promise<{ tally: BoundaryTally; failures: string[] }> {
  const machine: AnyStateMachine = lifecycles[name].machine;
  const tally: BoundaryTally = { boundaries: 0, recovered: 0, continued: 0, effects: 0 };
  const failures: string[] = [];
  const location = await kind.location(`${name}-${death}`);
  try {
    const ledger = new EffectLedger(lifecycles);
    const runIdOf = (b: Boundary) => `${name}-${b.id}`;
    const fail = (b: Boundary, what: string, actual: unknown, expected: unknown) =>
      failures.push(
        `${name} ${death} at commit ${b.commit} of [${b.plan.description}] (${runIdOf(b)}): ${what}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`,
      );
    const same = (b: Boundary, what: string, actual: unknown, expected: unknown) => {
      if (JSON.stringify(actual) !== JSON.stringify(expected)) fail(b, what, actual, expected);
    };

    const caught = await die({ name, boundaries, death, kind, location, ledger, host: DEAD, runIdOf });
    ledger.kill(DEAD);
    for (const b of boundaries)
      same(b, 'the commit the death caught', caught.get(runIdOf(b)), {
        seq: b.commit,
        written: death === 'after-durable',
      });

    // The restart: a new store object on the same files, a runtime that recovers what it finds.
    const store = await kind.open(location);
    const errors: RuntimeError[] = [];
    const restarted = await createRuntime({
      store,
      machines: lifecycles,
      clock: new ManualClock(),
      actors: ledger.actorsFor(RESTARTED),
      onError: (e) => errors.push(e),
    });
    await restarted.flush();
    await tick();
    const continuing: Array<{ b: Boundary; from: number; restoreStarts: number }> = [];
    for (const b of boundaries) {
      const runId = runIdOf(b);
      const { plan } = b;
      const at = death === 'before-durable' ? b.commit - 1 : b.commit;
      tally.boundaries++;
      const before = ledger.of(DEAD, runId);
      same(
        b,
        'effects the dead host made (one per acknowledged step that causes one)',
        sorted(before.started),
        sorted(plan.started[b.commit - 1] ?? []),
      );
      const after = ledger.of(RESTARTED, runId);
      tally.effects += before.started.length + after.started.length;
      // An actor's stop ends its work only once the step that stopped it is durable: the dead host
      // ended exactly what its acknowledged steps stopped, nothing the step it died on stopped.
      const acknowledged = b.commit - 1;
      same(
        b,
        'effects the dead host ended (only those its acknowledged steps stopped)',
        sorted(without(before.started, before.running)),
        sorted(without(plan.started[acknowledged] ?? [], plan.running[acknowledged] ?? [])),
      );
      const stored = await store.load(runId);
      if (at < 0) {
        same(b, 'the run, whose start was never durable', stored, undefined);
        same(b, 'effects on restart', after.started, []);
        continue;
      }
      if (!stored) {
        fail(b, 'the run', undefined, `at seq ${at}`);
        continue;
      }
      const snapshot = plan.snapshots[at]!;
      const rule = recoveryRule[name](snapshot);
      const history = await store.history(runId);
      same(
        b,
        'committed events',
        history.slice(0, at).map((e) => e.event.type),
        plan.rounds.slice(1, at + 1).map((r) => (r.commits as EventObject).type),
      );
      const verification = await verifyRun(store, lifecycles, runId);
      same(b, 'replay of the stored history', verification.mismatches, []);
      const runErrors = errors.filter((e) => e.runId === runId).map((e) => e.error.message);
      const value = (await restarted.getSnapshot(runId)).value;
      if (rule) {
        tally.recovered++;
        const recovery = history.slice(at);
        same(
          b,
          'what recovery applied',
          recovery.map((e) => ({ type: e.event.type, actor: e.actor })),
          [{ type: rule.type, actor: 'recovery' }],
        );
        const event = recovery[0]?.event as EventObject | undefined;
        if (!event) continue;
        same(b, 'seq after recovery', stored.seq, at + 1);
        const expected = restoredAfter(machine, snapshot, [event]);
        same(b, 'state after recovery', value, expected.value);
        if (rule.state) same(b, 'state recovery must lead to', value, rule.state);
        // And the run is out of what the rule recovers (for the task: no check running any more).
        const recovered = machine.resolveState({
          value: value as never,
          context: (await restarted.getSnapshot(runId)).context,
        });
        same(b, 'what recovery would apply once more', recoveryRule[name](recovered), undefined);
        same(b, 'errors', runErrors, []);
        same(b, 'effects on restart', sorted(after.started), sorted(expected.running));
        continue;
      }
      same(b, 'seq', stored.seq, at);
      same(b, 'state', value, snapshot.value);
      same(b, 'errors', runErrors, []);
      // A restored actor starts again: for one the dead host had started, that is the real actor
      // adopting its process; any other is the first and only time its step's effect happens.
      same(b, 'effects on restart', sorted(after.started), sorted(plan.running[at]!));
      // The model's running set tells which restored actors the dead host had started (its own
      // still counts as running what the step it died on stopped, never ended).
      const adopted = plan.running[at]!.filter((key) => before.started.includes(key));
      same(
        b,
        'effects made once each',
        sorted([...before.started, ...without(after.started, adopted)]),
        sorted(plan.started[at]!),
      );
      continuing.push({ b, from: at, restoreStarts: after.started.length });
    }

    // On to the end of each path, in lockstep again.
    const rounds = Math.max(0, ...continuing.map(({ b, from }) => b.plan.rounds.length - 1 - from));
    for (let step = 1; step <= rounds; step++) {
      await Promise.all(
        continuing
          .filter(({ b, from }) => from + step < b.plan.rounds.length)
          .map(({ b, from }) =>
            playRound(restarted, runIdOf(b), name, b.plan, from + step).catch(
              (error: Error) => void fail(b, `round ${from + step}`, error.message, 'committed'),
            ),
          ),
      );
    }
    await Promise.all(
      continuing.map(({ b }) =>
        playRefused(restarted, runIdOf(b), b.plan.trailing).catch(
          (error: Error) => void fail(b, 'trailing refusals', error.message, 'refused'),
        ),
      ),
    );
    await restarted.flush();
    await tick();
    for (const { b, from, restoreStarts } of continuing) {
      const runId = runIdOf(b);
      const end = b.plan.rounds.length - 1;
      if (end > from || b.plan.trailing.length) tally.continued++;
      const snapshot = await restarted.getSnapshot(runId);
      same(
        b,
        'state at the end of the path',
        { value: snapshot.value, seq: snapshot.seq },
        { value: b.plan.snapshots[end]!.value, seq: end },
      );
      const later = ledger.of(RESTARTED, runId).started.slice(restoreStarts);
      tally.effects += later.length;
      same(
        b,
        'effects on the way to the end',
        sorted(later),
        sorted(without(b.plan.started[end]!, b.plan.started[from]!)),
      );
    }
    if (ledger.afterDeath.length)
      failures.push(`${name} ${death}: the dead host still acted: ${JSON.stringify(ledger.afterDeath.slice(0, 3))}`);
    await restarted.close();
    await store.close();
  } finally {
    await kind.dispose?.(location);
  }
  return { tally, failures };
}
