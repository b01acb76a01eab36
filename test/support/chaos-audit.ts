/**
 * The chaos tests' verdict, read from the store and the agents' spawn records after the hosts were
 * killed, paused and cut off: nothing acknowledged lost or applied twice, no timer fired twice, no
 * agent spawned twice, no recovery rule applied twice, and each run ended as its plan says.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { EventRecord, Store, StoredRun } from '../../src/stores/store.js';
import { endProblems, type AgentFiles, type PlannedRun } from './chaos-workload.js';
import type { Acknowledged } from './routed-events.js';

export interface Audit {
  readonly problems: string[];
  /** Events in the store's histories, all runs together. */
  readonly events: number;
  /** Of those, the ones durable timers fired (actor `timer`). */
  readonly timers: number;
  /** Of those, the ones recovery rules applied at a takeover (actor `recovery`). */
  readonly recoveries: number;
  /** Agent processes the stand-ins recorded starting. */
  readonly spawns: number;
}

export async function auditRuns(
  store: Store,
  plans: readonly PlannedRun[],
  acknowledged: readonly Acknowledged[],
  files: AgentFiles,
): Promise<Audit> {
  const problems: string[] = [];
  let events = 0;
  let timers = 0;
  let recoveries = 0;
  let spawns = 0;
  const acks = new Map<string, Acknowledged[]>();
  for (const ack of acknowledged) acks.set(ack.runId, [...(acks.get(ack.runId) ?? []), ack]);
  for (const plan of plans) {
    const run = await store.load(plan.runId);
    if (!run) {
      problems.push(`${plan.runId}: not in the store, though its start was acknowledged`);
      continue;
    }
    const history = await store.history(plan.runId);
    events += history.length;
    timers += history.filter((e) => e.actor === 'timer').length;
    recoveries += history.filter((e) => e.actor === 'recovery').length;
    problems.push(
      ...historyProblems(run, history),
      ...acknowledgedProblems(plan.runId, history, acks.get(plan.runId) ?? []),
      ...endProblems(plan, run, history),
    );
    if (plan.machine === 'session') {
      const spawned = spawnRecord(files.spawnLog(plan.runId));
      spawns += spawned.length;
      problems.push(...spawnProblems(plan.runId, history, spawned));
    }
  }
  return { problems, events, timers, recoveries, spawns };
}

/** Seqs 1..n without a gap or a repeat, the row at n, each idempotency key once, each timer and recovery once. */
function historyProblems(run: StoredRun, history: readonly EventRecord[]): string[] {
  const problems: string[] = [];
  history.forEach((e, i) => e.seq !== i + 1 && problems.push(`${run.runId}: history entry ${i + 1} has seq ${e.seq}`));
  if (run.seq !== history.length)
    problems.push(`${run.runId}: the row is at seq ${run.seq} but the history holds ${history.length} events`);
  const keys = history.flatMap((e) => (e.idempotencyKey === undefined ? [] : [e.idempotencyKey]));
  for (const key of new Set(keys))
    if (keys.filter((k) => k === key).length > 1)
      problems.push(`${run.runId}: idempotency key ${key} applied more than once`);
  // A deadline's event names its deadline in its key: the same timer firing twice would show twice.
  const fired = history.filter((e) => e.actor === 'timer').map((e) => `${e.event.type}@${e.event.at}`);
  for (const timer of new Set(fired))
    if (fired.filter((t) => t === timer).length > 1) problems.push(`${run.runId}: timer ${timer} fired more than once`);
  const recovered = history.filter((e) => e.actor === 'recovery').map((e) => e.event.type);
  if (recovered.length > 1)
    problems.push(`${run.runId}: recovery rule applied ${recovered.length} times (${recovered.join(', ')})`);
  return problems;
}

/** Each acknowledged event is in the history once, at the seq it was acknowledged with. */
function acknowledgedProblems(
  runId: string,
  history: readonly EventRecord[],
  acknowledged: readonly Acknowledged[],
): string[] {
  const problems: string[] = [];
  for (const ack of acknowledged) {
    const applied = history.filter((e) => e.idempotencyKey === ack.idempotencyKey);
    if (applied.length !== 1)
      problems.push(
        `${runId}: ${ack.type} (${ack.idempotencyKey}) acknowledged by '${ack.host}' at seq ${ack.seq} is in the history ${applied.length} times`,
      );
    else if (applied[0]!.seq !== ack.seq || applied[0]!.event.type !== ack.type) {
      problems.push(
        `${runId}: ${ack.type} (${ack.idempotencyKey}) acknowledged at seq ${ack.seq} is stored at seq ${applied[0]!.seq} as ${applied[0]!.event.type}`,
      );
    }
  }
  return problems;
}

/** The pids a stand-in agent recorded, one per spawn. */
function spawnRecord(path: string): number[] {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).map(Number) : [];
}

/** At most one spawn per session, and the one its history reports. */
function spawnProblems(runId: string, history: readonly EventRecord[], spawned: readonly number[]): string[] {
  const problems: string[] = [];
  if (spawned.length > 1) problems.push(`${runId}: agent spawned ${spawned.length} times (pids ${spawned.join(', ')})`);
  const reported = history.filter((e) => e.event.type === 'agent.spawned').map((e) => e.event.pid as number);
  if (reported.some((pid) => !spawned.includes(pid)))
    problems.push(
      `${runId}: history reports agent pid ${reported.join(', ')}, the agent recorded ${spawned.join(', ') || 'no spawn'}`,
    );
  return problems;
}

/** The pids of every agent the stand-ins recorded: for ending them with the test. */
export function recordedAgents(files: AgentFiles, plans: readonly PlannedRun[]): number[] {
  return plans.flatMap((plan) => spawnRecord(files.spawnLog(plan.runId)));
}
