/**
 * Every configuration a machine can rest in (the set of active states across parallel regions,
 * with what its history states record) and the steps between them, found by running XState's own
 * algorithm (SCXML's microstep and macrostep: `always`, done events of compound and parallel
 * states, history, conflicts between regions) on the statechart model, with every guard taken as
 * "may pass or may fail": the context is not known statically, so whatever some run can do is
 * found, and a little more.
 */
import type { AnyStateNode } from 'xstate';
import { historyDefaults } from './transition-table.js';
import { pathOf, type Statechart, type StatechartTransition, type Trigger } from './statechart.js';

/** A configuration a run can rest in: no `always` left to take, no done event left to handle. */
export interface Configuration {
  readonly key: string;
  /** Its active atomic and final states, in document order. */
  readonly leaves: readonly string[];
  /** Every active state, the root ('') included. */
  readonly active: ReadonlySet<string>;
  /** Its leaves joined with '|' ("checks.lint.running|checks.test.done"), as a run's state is named. */
  readonly name: string;
  /** The shortest way a run gets here from its start ("draft -SUBMIT-> checks.lint.running|checks.test.running"). */
  readonly path: string;
  /** The machine has finished (a top-level final state). */
  readonly done: boolean;
}

/** One step of a run from a resting configuration to the next: one trigger and everything that follows from it at once. */
export interface ConfigurationStep {
  readonly from: string;
  readonly to: string;
  /** What fired it (the trigger of its first transitions). */
  readonly trigger: Trigger;
  /** That trigger as a person reads it: "SUBMIT", "after 20 s", "when fetchUser is done", "any event". */
  readonly label: string;
  /** Every transition it takes, `always` and done events that follow included. */
  readonly transitions: readonly StatechartTransition[];
  /** The transitions of its first microstep, the ones its trigger fires. */
  readonly fired: readonly StatechartTransition[];
  /** Every state it exits on the way (even one it enters again). */
  readonly exited: ReadonlySet<string>;
  /** Every state it enters on the way. */
  readonly entered: ReadonlySet<string>;
  /** The states it leaves for good in one of its microsteps (exited and not entered again in the same microstep). */
  readonly left: ReadonlySet<string>;
  /** As a path reads: "-SUBMIT-> checks.lint.running|checks.test.running -always-> done". */
  readonly description: string;
}

export interface ConfigurationGraph {
  readonly model: Statechart;
  readonly initial: string;
  readonly resting: ReadonlyMap<string, Configuration>;
  readonly steps: readonly ConfigurationStep[];
  /** Every state some configuration has active, resting or passed through at once. */
  readonly reached: ReadonlySet<string>;
  /** The shortest way a run gets to a configuration with `state` active, or undefined for a state never reached. */
  pathTo(state: string): string | undefined;
  /**
   * False when the exploration stopped at one of its bounds (`MAX_CONFIGURATIONS` configurations, 256
   * ways to choose among guards in one step, 16 done events waiting): what was not found may still be reachable.
   */
  readonly complete: boolean;
}

/** Resting configurations explored before giving up (a machine with many independent regions has their product). */
export const MAX_CONFIGURATIONS = 5000;
/** Ways to choose among guarded transitions tried per trigger and configuration. */
const MAX_CHOICES = 256;
/** Done events left waiting in one macrostep before the rest are dropped (only an `always` loop raising them gets there). */
const MAX_QUEUE = 16;

/** The models whose exploration left something out at one of the bounds above: what was not found may still be reachable. */
const cutShort = new WeakSet<Statechart>();

/** `queue` kept to `MAX_QUEUE` done events, noting when one is dropped. */
function bounded(model: Statechart, queue: readonly string[]): readonly string[] {
  if (queue.length <= MAX_QUEUE) return queue;
  cutShort.add(model);
  return queue.slice(0, MAX_QUEUE);
}

interface Active {
  readonly nodes: ReadonlySet<AnyStateNode>;
  readonly history: ReadonlyMap<string, readonly AnyStateNode[]>;
  readonly done: boolean;
}

interface Microstep {
  readonly label: string;
  readonly after: Active;
  readonly transitions: readonly StatechartTransition[];
  readonly exited: readonly AnyStateNode[];
  readonly entered: readonly AnyStateNode[];
  readonly raised: readonly string[];
}

const graphs = new WeakMap<Statechart, ConfigurationGraph>();

/** The configurations of the machine `model` describes and the steps between them (computed once per model). */
export function configurationGraph(model: Statechart): ConfigurationGraph {
  let graph = graphs.get(model);
  if (!graph) {
    graph = explore(model);
    graphs.set(model, graph);
  }
  return graph;
}

function explore(model: Statechart): ConfigurationGraph {
  const resting = new Map<string, Configuration>();
  const steps: ConfigurationStep[] = [];
  const reached = new Map<string, () => string>();
  const states = new Map<string, Active>();
  const queue: string[] = [];
  let complete = true;

  /** Notes the states of the configuration a trail's microstep `i` reaches, with the way there (built only when asked). */
  const see = (before: () => string, trail: readonly Microstep[], i: number) => {
    for (const node of trail[i]!.after.nodes) {
      const path = pathOf(node);
      if (!reached.has(path))
        reached.set(
          path,
          memo(() => before() + describe(trail.slice(0, i + 1))),
        );
    }
  };
  const rest = (active: Active, path: () => string): string => {
    const key = keyOf(active);
    if (!resting.has(key)) {
      if (resting.size >= MAX_CONFIGURATIONS) {
        complete = false;
        return key;
      }
      const leaves = leavesOf(active);
      const way = memo(path);
      resting.set(key, {
        key,
        leaves,
        active: new Set([...active.nodes].map(pathOf)),
        name: leaves.join('|'),
        get path() {
          return way();
        },
        done: active.done,
      });
      states.set(key, active);
      queue.push(key);
    }
    return key;
  };

  const start = microstep({ nodes: new Set(), history: new Map(), done: false }, [initialTransition(model)], '', true);
  const startName = () => nameOf(start.after);
  for (const node of start.after.nodes) reached.set(pathOf(node), startName);
  const initialKeys = settle(model, start.after, start.raised).map((trail) => {
    trail.forEach((_, i) => see(startName, trail, i));
    return rest(trail.at(-1)?.after ?? start.after, () => startName() + describe(trail));
  });

  for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
    const from = resting.get(key)!;
    const active = states.get(key)!;
    if (active.done) continue;
    const triggered: Array<[Trigger, StatechartTransition[]]> = [];
    for (const [eventType, trigger] of outsideEvents(model, active))
      for (const fired of choices(model, active, (node) => candidates(model, node, eventType)))
        triggered.push([trigger, fired]);
    // XState takes `always` after every event, even one no transition takes: a guard held back may pass then.
    if (hasGuardedAlways(model, active)) triggered.push([ANY_EVENT, []]);
    const fromPath = () => from.path;
    for (const [trigger, fired] of triggered) {
      const first = microstep(active, fired, fired[0]?.label ?? ANY_EVENT_WORDS);
      for (const following of settle(model, first.after, first.raised)) {
        const trail = [first, ...following].filter((step) => step.exited.length + step.entered.length > 0);
        if (trail.length === 0) continue;
        trail.forEach((_, i) => see(fromPath, trail, i));
        const to = rest(trail.at(-1)!.after, () => from.path + describe(trail));
        // The step keeps the configuration it ends in as stored, not its own copy: thousands of steps end in each.
        const last = trail.at(-1)!;
        trail[trail.length - 1] = { ...last, after: states.get(to) ?? last.after };
        steps.push(stepOf(key, to, trigger, first.label, fired, trail));
      }
    }
  }
  return {
    model,
    initial: initialKeys[0]!,
    resting,
    steps,
    reached: new Set(reached.keys()),
    pathTo: (state) => reached.get(state)?.(),
    complete: complete && !cutShort.has(model),
  };
}

/** `make`, called once when first asked. */
function memo(make: () => string): () => string {
  let made: string | undefined;
  return () => (made ??= make());
}

function stepOf(
  from: string,
  to: string,
  trigger: Trigger,
  label: string,
  fired: readonly StatechartTransition[],
  trail: readonly Microstep[],
): ConfigurationStep {
  let description: string | undefined;
  const left = new Set<string>();
  for (const step of trail) {
    const entered = new Set(step.entered);
    for (const node of step.exited) if (!entered.has(node)) left.add(pathOf(node));
  }
  return {
    from,
    to,
    trigger,
    label,
    fired,
    transitions: trail.flatMap((step) => step.transitions),
    exited: new Set(trail.flatMap((step) => step.exited.map(pathOf))),
    entered: new Set(trail.flatMap((step) => step.entered.map(pathOf))),
    left,
    get description() {
      return (description ??= describe(trail));
    },
  };
}

const describe = (trail: readonly Microstep[]) =>
  trail.map((step) => ` -${step.label}-> ${nameOf(step.after)}`).join('');

/**
 * Every way the configuration `active` settles, with `queue` the done events it has raised: the
 * `always` transitions whose guards may pass, then the done events in order, until nothing is left
 * to take. Each way is the microsteps taken (none when it is already at rest).
 */
function settle(model: Statechart, active: Active, queue: readonly string[]): Microstep[][] {
  const ways: Microstep[][] = [];
  const seen = new Set<string>();
  const go = (at: Active, pending: readonly string[], trail: Microstep[]) => {
    const key = `${keyOf(at)}\u0001${pending.join('\u0002')}`;
    if (seen.has(key)) return;
    seen.add(key);
    if (at.done) {
      ways.push(trail);
      return;
    }
    let mayRest = false;
    for (const fired of choices(model, at, (node) => alwaysOf(model, node), true)) {
      const step = fired.length === 0 ? undefined : microstep(at, fired, 'always');
      if (!step || (step.exited.length === 0 && step.entered.length === 0)) {
        mayRest = true;
        continue;
      }
      go(step.after, bounded(model, [...pending, ...step.raised]), [...trail, step]);
    }
    if (!mayRest) return;
    const [next, ...later] = pending;
    if (next === undefined) {
      ways.push(trail);
      return;
    }
    for (const fired of choices(model, at, (node) => candidates(model, node, next), true)) {
      const step = fired.length === 0 ? undefined : microstep(at, fired, fired[0]!.label);
      if (!step || (step.exited.length === 0 && step.entered.length === 0)) go(at, later, trail);
      else go(step.after, bounded(model, [...later, ...step.raised]), [...trail, step]);
    }
  };
  go(active, queue, []);
  return ways;
}

const isAlways = (t: StatechartTransition) => t.trigger.kind === 'always';

/** Any event at all, which no transition takes: after it XState still takes the `always` whose guards now pass. */
const ANY_EVENT: Trigger = { kind: 'wildcard', pattern: '*' };
const ANY_EVENT_WORDS = 'any event';

function hasGuardedAlways(model: Statechart, active: Active): boolean {
  return [...active.nodes].some((node) =>
    model.transitionsFrom(pathOf(node)).some((t) => isAlways(t) && t.guard !== undefined),
  );
}

/** The events that may arrive while `active` rests, each with what fires it: every descriptor of its active states but done events of states, which only XState raises. */
function outsideEvents(model: Statechart, active: Active): Map<string, Trigger> {
  const events = new Map<string, Trigger>();
  for (const node of sortedByOrder(active.nodes)) {
    for (const t of model.transitionsFrom(pathOf(node))) {
      if (t.trigger.kind === 'always' || t.trigger.kind === 'state-done') continue;
      if (!events.has(t.eventType)) events.set(t.eventType, t.trigger);
    }
  }
  return events;
}

/** The transitions `node` has for the event `eventType`: exact ones first, then wildcards, longest first (XState's `getCandidates`). */
const alwaysCache = new WeakMap<AnyStateNode, StatechartTransition[]>();
function alwaysOf(model: Statechart, node: AnyStateNode): StatechartTransition[] {
  let found = alwaysCache.get(node);
  if (!found) alwaysCache.set(node, (found = model.transitionsFrom(pathOf(node)).filter(isAlways)));
  return found;
}

const candidateCache = new WeakMap<AnyStateNode, Map<string, StatechartTransition[]>>();
function candidates(model: Statechart, node: AnyStateNode, eventType: string): StatechartTransition[] {
  let byEvent = candidateCache.get(node);
  if (!byEvent) candidateCache.set(node, (byEvent = new Map()));
  let found = byEvent.get(eventType);
  if (!found) byEvent.set(eventType, (found = candidatesOf(model, node, eventType)));
  return found;
}

function candidatesOf(model: Statechart, node: AnyStateNode, eventType: string): StatechartTransition[] {
  const own = model.transitionsFrom(pathOf(node)).filter((t) => !isAlways(t));
  const exact = own.filter((t) => t.eventType === eventType);
  const wild = own
    .filter((t) => t.eventType !== eventType && matches(eventType, t.eventType))
    .sort((a, b) => b.eventType.length - a.eventType.length);
  return [...exact, ...wild];
}

/** XState's `matchesEventDescriptor`: `*` matches everything, `a.*` every event under `a.`. */
function matches(eventType: string, descriptor: string): boolean {
  if (descriptor === eventType || descriptor === '*') return true;
  if (!descriptor.endsWith('.*')) return false;
  const wanted = descriptor.split('.');
  const got = eventType.split('.');
  for (let i = 0; i < wanted.length; i++) {
    if (wanted[i] === '*') return i === wanted.length - 1;
    if (wanted[i] !== got[i]) return false;
  }
  return true;
}

/**
 * Every set of transitions XState may take at once: each atomic state, from itself up through its
 * ancestors, takes the first of its candidates whose guard passes; a guarded candidate may pass
 * or fail, an unguarded one passes. Sets are listed once each; with `withNone`, the empty set too
 * when every candidate may fail.
 */
function choices(
  model: Statechart,
  active: Active,
  candidatesOf: (node: AnyStateNode) => readonly StatechartTransition[],
  withNone = false,
): StatechartTransition[][] {
  const perAtomic: Array<Array<StatechartTransition | undefined>> = [];
  for (const atomic of sortedByOrder(active.nodes).filter((n) => n.type === 'atomic' || n.type === 'final')) {
    const options: Array<StatechartTransition | undefined> = [];
    let certain = false;
    for (let node: AnyStateNode | undefined = atomic; node && !certain; node = node.parent) {
      for (const t of candidatesOf(node)) {
        options.push(t);
        if (!t.guard) {
          certain = true;
          break;
        }
      }
    }
    if (!certain) options.push(undefined);
    perAtomic.push(options);
  }
  const sets = new Map<string, StatechartTransition[]>();
  const combine = (i: number, chosen: StatechartTransition[]) => {
    if (sets.size >= MAX_CHOICES) {
      cutShort.add(model);
      return;
    }
    if (i === perAtomic.length) {
      const unique = [...new Set(chosen)];
      sets.set(unique.map((t) => indexOf(model, t)).join(','), unique);
      return;
    }
    for (const option of perAtomic[i]!) combine(i + 1, option ? [...chosen, option] : chosen);
  };
  combine(0, []);
  return [...sets.values()].filter((set) => withNone || set.length > 0);
}

const indexes = new WeakMap<Statechart, Map<StatechartTransition, number>>();
function indexOf(model: Statechart, transition: StatechartTransition): number {
  let index = indexes.get(model);
  if (!index) indexes.set(model, (index = new Map(model.transitions.map((t, i) => [t, i]))));
  return index.get(transition) ?? -1;
}

/** The transition XState takes to start a machine: the root's initial states entered. */
function initialTransition(model: Statechart): StatechartTransition {
  const root = model.machine.root;
  return {
    source: '',
    trigger: { kind: 'always' },
    eventType: '',
    label: 'start',
    targets: [],
    reenter: true,
    forbidden: false,
    branch: 0,
    definition: { source: root, target: [root], eventType: '', actions: [], reenter: true },
  };
}

/** One microstep (XState's `microstep`): conflicts removed, states exited (history recorded), states entered, done events raised. */
function microstep(
  active: Active,
  transitions: readonly StatechartTransition[],
  label: string,
  initial = false,
): Microstep {
  const history = new Map(active.history);
  const filtered = initial ? [...transitions] : removeConflicting(transitions, active.nodes, history);
  const nodes = new Set(active.nodes);
  const exited = initial ? [] : exitSet(filtered, nodes, history).sort((a, b) => b.order - a.order);
  for (const node of exited) {
    for (const h of historyChildren(node)) {
      history.set(
        h.id,
        [...nodes].filter((n) =>
          h.history === 'deep'
            ? (n.type === 'atomic' || n.type === 'final') && isDescendant(n, node)
            : n.parent === node,
        ),
      );
    }
  }
  for (const node of exited) nodes.delete(node);
  const toEnter = entrySet(filtered, history).sort((a, b) => a.order - b.order);
  const raised: string[] = [];
  const completed = new Set<AnyStateNode>();
  let done = false;
  for (const node of toEnter) {
    nodes.add(node);
    if (node.type !== 'final') continue;
    const parent = node.parent;
    let marker = parent?.type === 'parallel' ? parent : parent?.parent;
    if (parent?.type === 'compound') raised.push(`xstate.done.state.${parent.id}`);
    while (marker?.type === 'parallel' && !completed.has(marker) && inFinalState(nodes, marker)) {
      completed.add(marker);
      raised.push(`xstate.done.state.${marker.id}`);
      marker = marker.parent;
    }
    if (!marker) done = true;
  }
  return {
    label,
    after: { nodes, history, done },
    transitions: filtered,
    exited,
    entered: toEnter,
    raised,
  };
}

const sourceOf = (t: StatechartTransition) => t.definition.source;

function removeConflicting(
  transitions: readonly StatechartTransition[],
  nodes: ReadonlySet<AnyStateNode>,
  history: ReadonlyMap<string, readonly AnyStateNode[]>,
): StatechartTransition[] {
  const kept: StatechartTransition[] = [];
  for (const t1 of transitions) {
    let preempted = false;
    const removed = new Set<StatechartTransition>();
    const exits1 = new Set(exitSet([t1], nodes, history));
    for (const t2 of kept) {
      if (!exitSet([t2], nodes, history).some((n) => exits1.has(n))) continue;
      if (isDescendant(sourceOf(t1), sourceOf(t2))) removed.add(t2);
      else {
        preempted = true;
        break;
      }
    }
    if (preempted) continue;
    for (const t of removed) kept.splice(kept.indexOf(t), 1);
    kept.push(t1);
  }
  return kept;
}

function exitSet(
  transitions: readonly StatechartTransition[],
  nodes: ReadonlySet<AnyStateNode>,
  history: ReadonlyMap<string, readonly AnyStateNode[]>,
): AnyStateNode[] {
  const out = new Set<AnyStateNode>();
  for (const t of transitions) {
    if (!t.definition.target?.length) continue;
    const domain = transitionDomain(t, history);
    if (t.definition.reenter && sourceOf(t) === domain) out.add(domain!);
    for (const node of nodes) if (domain === undefined || isDescendant(node, domain)) out.add(node);
  }
  return [...out];
}

function effectiveTargets(t: StatechartTransition, history: ReadonlyMap<string, readonly AnyStateNode[]>) {
  const out = new Set<AnyStateNode>();
  for (const target of t.definition.target ?? []) {
    if (target.type !== 'history') out.add(target);
    else for (const node of history.get(target.id) ?? historyDefaults(target)) out.add(node);
  }
  return [...out];
}

function transitionDomain(
  t: StatechartTransition,
  history: ReadonlyMap<string, readonly AnyStateNode[]>,
): AnyStateNode | undefined {
  const targets = effectiveTargets(t, history);
  const source = sourceOf(t);
  if (!t.definition.reenter && targets.every((target) => target === source || isDescendant(target, source)))
    return source;
  const lca = leastCommonAncestor([...targets, source]);
  if (lca) return lca;
  return t.definition.reenter ? undefined : source.machine.root;
}

function entrySet(transitions: readonly StatechartTransition[], history: ReadonlyMap<string, readonly AnyStateNode[]>) {
  const toEnter = new Set<AnyStateNode>();
  for (const t of transitions) {
    const domain = transitionDomain(t, history);
    const source = sourceOf(t);
    for (const target of t.definition.target ?? []) {
      if (target.type !== 'history' && (source !== target || source !== domain || t.definition.reenter))
        toEnter.add(target);
      addDescendants(target, history, toEnter);
    }
    for (const target of effectiveTargets(t, history)) {
      const ancestors = properAncestors(target, domain);
      if (domain?.type === 'parallel') ancestors.push(domain);
      addAncestors(ancestors, history, toEnter, !source.parent && t.definition.reenter ? undefined : domain);
    }
  }
  return [...toEnter];
}

function addDescendants(
  node: AnyStateNode,
  history: ReadonlyMap<string, readonly AnyStateNode[]>,
  toEnter: Set<AnyStateNode>,
): void {
  if (node.type === 'history') {
    const restored = history.get(node.id) ?? historyDefaults(node);
    for (const s of restored) {
      toEnter.add(s);
      addDescendants(s, history, toEnter);
    }
    for (const s of restored) addAncestors(properAncestors(s, node.parent), history, toEnter);
    return;
  }
  if (node.type === 'compound') {
    const initial = node.initial!.target[0]!;
    if (initial.type !== 'history') toEnter.add(initial);
    addDescendants(initial, history, toEnter);
    addAncestors(properAncestors(initial, node), history, toEnter);
    return;
  }
  if (node.type === 'parallel') {
    for (const child of childrenOf(node).filter((c) => c.type !== 'history')) {
      if ([...toEnter].some((s) => isDescendant(s, child))) continue;
      toEnter.add(child);
      addDescendants(child, history, toEnter);
    }
  }
}

function addAncestors(
  ancestors: readonly AnyStateNode[],
  history: ReadonlyMap<string, readonly AnyStateNode[]>,
  toEnter: Set<AnyStateNode>,
  domain?: AnyStateNode,
): void {
  for (const ancestor of ancestors) {
    if (!domain || isDescendant(ancestor, domain)) toEnter.add(ancestor);
    if (ancestor.type !== 'parallel') continue;
    for (const child of childrenOf(ancestor).filter((c) => c.type !== 'history')) {
      if ([...toEnter].some((s) => isDescendant(s, child))) continue;
      toEnter.add(child);
      addDescendants(child, history, toEnter);
    }
  }
}

function inFinalState(nodes: ReadonlySet<AnyStateNode>, node: AnyStateNode): boolean {
  if (node.type === 'compound') return childrenOf(node).some((c) => c.type === 'final' && nodes.has(c));
  if (node.type === 'parallel') return childrenOf(node).every((c) => inFinalState(nodes, c));
  return node.type === 'final';
}

const childrenOf = (node: AnyStateNode) => Object.values(node.states) as AnyStateNode[];
const historyChildren = (node: AnyStateNode) => childrenOf(node).filter((c) => c.type === 'history');

function isDescendant(child: AnyStateNode, parent: AnyStateNode): boolean {
  for (let at = child.parent; at; at = at.parent) if (at === parent) return true;
  return false;
}

/** The ancestors of `node` from its parent up, stopping below `upTo` (all of them when undefined). */
function properAncestors(node: AnyStateNode, upTo: AnyStateNode | undefined): AnyStateNode[] {
  const out: AnyStateNode[] = [];
  for (let at = node.parent; at && at !== upTo; at = at.parent) out.push(at);
  return out;
}

function leastCommonAncestor(nodes: readonly AnyStateNode[]): AnyStateNode | undefined {
  const [head, ...tail] = nodes;
  for (const ancestor of properAncestors(head!, undefined))
    if (tail.every((n) => isDescendant(n, ancestor))) return ancestor;
  return undefined;
}

const documentOrders = new WeakMap<AnyStateNode, AnyStateNode[]>();

/** `nodes` in document order (XState's `order`), read off the machine's nodes rather than sorted: this runs for every step. */
function sortedByOrder(nodes: ReadonlySet<AnyStateNode> | readonly AnyStateNode[]): AnyStateNode[] {
  const set: ReadonlySet<AnyStateNode> = nodes instanceof Set ? nodes : new Set(nodes as readonly AnyStateNode[]);
  const first = set.values().next().value as AnyStateNode | undefined;
  if (!first) return [];
  const root = first.machine.root;
  let all = documentOrders.get(root);
  if (!all) {
    const visit = (node: AnyStateNode): AnyStateNode[] => [node, ...childrenOf(node).flatMap(visit)];
    documentOrders.set(root, (all = visit(root)));
  }
  return all.filter((node) => set.has(node));
}

function leavesOf(active: Active): string[] {
  return sortedByOrder(active.nodes)
    .filter((n) => n.type === 'atomic' || n.type === 'final')
    .map(pathOf);
}

const names = new WeakMap<Active, string>();
function nameOf(active: Active): string {
  let name = names.get(active);
  if (name === undefined) names.set(active, (name = leavesOf(active).join('|')));
  return name;
}

function keyOf(active: Active): string {
  const nodes = sortedByOrder(active.nodes)
    .map((n) => n.id)
    .join(',');
  const history = [...active.history.entries()]
    .filter(([, recorded]) => recorded.length > 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([id, recorded]) => `${id}=${sortedByOrder(recorded).map((n) => n.id)}`)
    .join(';');
  return `${nodes}${history ? `#${history}` : ''}${active.done ? '!' : ''}`;
}
