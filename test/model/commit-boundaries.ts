/**
 * The commit boundaries of a lifecycle's generated paths, and what should hold at each.
 *
 * A path commits at its start and at every event the machine takes (an event it refuses commits
 * nothing). Paths share their beginnings, so each distinct sequence of committed events is one
 * boundary, checked once, with the path it came from to continue on. What the actors should have
 * done is read off the pure machine (an XState actor, no runtime, no store), given stand-in actors
 * that note when they start and stop: that is the oracle the runtime's side effects are held to.
 */
import { createActor, fromCallback, type AnyMachineSnapshot, type AnyStateMachine, type EventObject } from 'xstate';
import { ManualClock } from '../../src/runtime/index.js';
import { effectActors, effectKey } from '../support/recording-actors.js';
import { lifecycles, type LifecycleName } from '../../machines/index.js';
import { edgeKey, leafName, machineEdges, transitionCoveringPaths, type ModelPath } from './harness.js';
import { lifecycleModels } from './lifecycles/index.js';
import { modelInputs } from './lifecycles/model.js';

/** The clock reading of every runtime in the crash suite, which is the `at` they stamp on an event without one. */
export const CLOCK_START = new ManualClock().now();

/** What a run does to reach its next commit: the refused events the path sends first, then the one that commits (or the start). */
export interface Round {
  readonly refused: EventObject[];
  readonly commits: EventObject | 'start';
}

/** One generated path, by its commits, with what the pure machine says after each. */
export interface PathPlan {
  readonly input: unknown;
  readonly rounds: Round[];
  /** Refused events the path sends after its last commit. */
  readonly trailing: EventObject[];
  /** After each round: the machine's snapshot, the effects started so far, and those still running. */
  readonly snapshots: AnyMachineSnapshot[];
  readonly started: string[][];
  readonly running: string[][];
  readonly description: string;
}

/** A crash point: the run dies at commit `commit` of `plan` (0 is the start). */
export interface Boundary {
  readonly id: string;
  readonly plan: PathPlan;
  readonly commit: number;
}

const stamped = (event: EventObject) => ({ at: CLOCK_START, ...event }) as EventObject;

/** Replays a path through the pure machine with noting stand-ins, round by round. */
export function planPath(machine: AnyStateMachine, path: ModelPath, input: unknown): PathPlan {
  const notes: Array<{ key: string; kind: 'start' | 'stop' }> = [];
  const actors = Object.fromEntries(
    effectActors(machine).map((name) => [
      name,
      fromCallback<EventObject, unknown>(({ input: actorInput }) => {
        const key = effectKey(name, actorInput);
        notes.push({ key, kind: 'start' });
        return () => void notes.push({ key, kind: 'stop' });
      }),
    ]),
  );
  const actor = createActor(machine.provide({ actors }), { input });
  actor.start();
  const plan: PathPlan = { input, rounds: [], trailing: [], snapshots: [], started: [], running: [], description: '' };
  const settle = (round: Round) => {
    const started: string[] = [];
    const running: string[] = [];
    for (const note of notes) {
      if (note.kind === 'start') {
        started.push(note.key);
        running.push(note.key);
      } else running.splice(running.indexOf(note.key), 1);
    }
    plan.rounds.push(round);
    plan.snapshots.push(actor.getSnapshot());
    plan.started.push(started);
    plan.running.push(running);
  };
  settle({ refused: [], commits: 'start' });
  let refused: EventObject[] = [];
  for (const step of path.steps) {
    if (step.event.type === 'xstate.init') continue;
    const event = stamped(step.event);
    if (!actor.getSnapshot().can(event)) {
      refused.push(step.event);
      continue;
    }
    actor.send(event);
    settle({ refused, commits: step.event });
    refused = [];
  }
  actor.stop();
  plan.trailing.push(...refused);
  const description = plan.rounds
    .slice(1)
    .map((r) => (r.commits as EventObject).type)
    .join(' → ');
  return Object.assign(plan, { description: description || '(start)' });
}

/**
 * Which boundaries to crash at: every distinct committed prefix of the paths (`prefix`), or one per
 * transition of the machine (`transition`: the first path to commit it, crashed at that commit),
 * plus the start.
 */
export type BoundarySelection = 'prefix' | 'transition';

const edgeAt = (plan: PathPlan, commit: number) =>
  commit === 0
    ? 'start'
    : edgeKey(
        leafName(plan.snapshots[commit - 1]!),
        (plan.rounds[commit]!.commits as EventObject).type,
        leafName(plan.snapshots[commit]!),
      );

/** The boundaries of the paths, in the order first met. */
export function commitBoundaries(
  machine: AnyStateMachine,
  runs: ReadonlyArray<{ input: unknown; paths: ModelPath[] }>,
  selection: BoundarySelection,
): Boundary[] {
  const boundaries = new Map<string, Boundary>();
  const edges = machineEdges(machine);
  runs.forEach(({ input, paths }, inputIndex) => {
    for (const path of paths) {
      if (selection === 'transition' && boundaries.has('start')) {
        // Replaying a path through the machine is what costs: skip those that can take no new transition.
        const taken = path.steps
          .slice(1)
          .map((step, i) => edgeKey(leafName(path.steps[i]!.state), step.event.type, leafName(step.state)));
        if (taken.every((edge) => !edges.has(edge) || boundaries.has(edge))) continue;
      }
      const plan = planPath(machine, path, input);
      let prefix = `${inputIndex}`;
      plan.rounds.forEach((round, commit) => {
        if (round.commits !== 'start') prefix += ` ${JSON.stringify(round.commits)}`;
        const key = selection === 'prefix' ? prefix : edgeAt(plan, commit);
        if (!boundaries.has(key)) boundaries.set(key, { id: `b${boundaries.size}`, plan, commit });
      });
    }
  });
  return [...boundaries.values()];
}

const generated = new Map<string, Boundary[]>();

/** The boundaries of a registered lifecycle's transition-covering paths (generated once per test file). */
export function lifecycleBoundaries(name: LifecycleName, selection: BoundarySelection): Boundary[] {
  const key = `${name} ${selection}`;
  let boundaries = generated.get(key);
  if (!boundaries) {
    const machine: AnyStateMachine = lifecycles[name].machine;
    const model = lifecycleModels[name];
    const runs = modelInputs(model).map((input) => ({
      input,
      paths: transitionCoveringPaths(machine, { samples: model.samples, input, contextKey: model.contextKey }),
    }));
    boundaries = commitBoundaries(machine, runs, selection);
    generated.set(key, boundaries);
  }
  return boundaries;
}
