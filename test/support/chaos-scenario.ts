/**
 * The chaos test of issue #17, for any store several `serve` processes can share (one Postgres
 * schema, one SQLite file): three hosts start a hundred runs of mixed lifecycles (chaos-workload.ts),
 * a client sends their events to whichever host holds each run, and in each round one host is
 * killed (SIGKILL, then replaced by a fresh host with a new id, so that three stay up) and another
 * is paused (SIGSTOP) until its runs are taken over, with a timer of its own due meanwhile and
 * requests of a client waiting in its socket, and then continued (SIGCONT). In the end the store
 * must hold every acknowledged event exactly once, each timer fired once, each agent spawned once,
 * and every run where its plan says (chaos-audit.ts); the paused host's late writes must all have
 * been refused. Last, one host stops gracefully (SIGTERM): the others adopt its runs, and its
 * running sessions finish on them with the agents they had. The figures (takeovers and how long they took, refusals, events, timers, spawns)
 * come back for docs/hosting.md.
 */
import { writeFileSync } from 'node:fs';
import { expect, onTestFinished } from 'vitest';
import { signalGroup } from '../../src/os/process-identity.js';
import type { Store } from '../../src/stores/store.js';
import { auditRuns, recordedAgents } from './chaos-audit.js';
import {
  agentFiles,
  chaosWorkload,
  lastPhase,
  silentSession,
  workingSession,
  type PlannedRun,
} from './chaos-workload.js';
import { leaseLosses } from './lease-loss-log.js';
import { EventLedger, sendRouted, type Answer } from './routed-events.js';
import { ServeCluster } from './serve-cluster.js';
import { authOf } from './serve-process.js';
import { describeRuns, untilSettled } from './settled-runs.js';
import { heldBy, takenOver, type Takeover } from './takeover-watch.js';
import { until } from './until.js';

export interface ChaosOptions {
  /** The folder the hosts run in (their session logs) and the agents' records go. */
  readonly dir: string;
  /** serve's `--store` value. */
  readonly store: string;
  /** The test's own connection to the same store, to route events and to check the outcome. */
  readonly audit: Store;
  readonly ttlMs: number;
  readonly hibernateAfterMs: number;
  /** How many runs in all: the workload, three fresh sessions on each paused host, three on the host stopped gracefully. */
  readonly runs: number;
  readonly rounds: number;
  /**
   * Asked right after a host is paused: whether it holds something every other host waits for
   * (SQLite's write lock, taken the instant it stopped). Then the pause is undone and tried again.
   */
  readonly pausedHostBlocks?: () => Promise<boolean>;
}

export interface ChaosFigures {
  readonly store: string;
  readonly ttlMs: number;
  readonly hostsStarted: number;
  readonly runs: number;
  readonly acknowledgedEvents: number;
  readonly historyEvents: number;
  readonly timersFired: number;
  readonly recoveryEvents: number;
  readonly agentSpawns: number;
  /**
   * Runs of killed hosts claimed by others, and from the kill to the claim seen in the store. On one
   * machine a host finds a killed one dead by its pid, so these move at its next sweep; the runs of
   * a paused host (or one on another machine) move once their leases run out.
   */
  readonly takeovers: number;
  readonly takeoverMs: { readonly median: number; readonly max: number };
  /** Runs of paused hosts claimed by others, and from the SIGSTOP to the claim. */
  readonly pausedTakeovers: number;
  readonly pausedTakeoverMs: { readonly median: number; readonly max: number };
  /** Runs the hosts stopped hosting because another host had claimed them, as their logs say (see lease-loss-log.ts). */
  readonly lostRuns: number;
  /** Late writes: events the hosts applied in memory after losing a run, whose commits were refused (LeaseLostError). */
  readonly refusedLateEvents: number;
  /** Requests a client sent a paused host, answered after SIGCONT: how many, and the errors they were refused with. */
  readonly lateRequests: number;
  readonly lateRefusals: Record<string, number>;
  /** Pauses undone because the host held the store's write lock. */
  readonly pausesRetried: number;
  /** Runs a host stopped gracefully (SIGTERM) handed over, that others adopted (its running sessions among them), and from the SIGTERM to the claim. */
  readonly handedOver: number;
  readonly adoptionMs: { readonly median: number; readonly max: number };
  readonly clientRetries: Record<string, number>;
}

export interface ChaosOutcome {
  readonly figures: ChaosFigures;
  readonly problems: string[];
}

const HOST_IDS = 'abcdefghijklmnopqrstuvwxyz';
const FRESH_PER_PAUSE = 3;
const HANDED_OVER_SESSIONS = 3;

/**
 * The verdict both chaos tests hold their outcome to: nothing wrong in the store (a 2xx to a late
 * request is a problem), hosts killed and paused with runs to lose, the paused hosts fenced (each
 * learned from the store, at a renewal or a refused commit, that its runs were taken, and stopped
 * hosting them), and every late request refused with a 409: by the store's fence
 * (LeaseLostError), by a host that knew (RunHeldError), or, for a session that had ended
 * meanwhile (its start deadline passed in the pause), as an event it no longer takes
 * (InvalidTransitionError: an ended run is anyone's to read, and takes no writes).
 */
export function expectSound({ figures, problems }: ChaosOutcome): void {
  expect(problems).toEqual([]);
  expect(figures.takeovers).toBeGreaterThan(0);
  expect(figures.pausedTakeovers).toBeGreaterThan(0);
  expect(figures.handedOver).toBeGreaterThan(0);
  expect(figures.lostRuns).toBeGreaterThan(0);
  expect(figures.lateRequests).toBeGreaterThan(0);
  for (const refusal of Object.keys(figures.lateRefusals))
    expect(refusal).toMatch(/^409 (LeaseLostError|RunHeldError|InvalidTransitionError)$/);
}

export async function runChaos(options: ChaosOptions): Promise<ChaosOutcome> {
  const { audit, rounds } = options;
  const files = agentFiles(options.dir);
  const plans = chaosWorkload(options.runs - rounds * FRESH_PER_PAUSE - HANDED_OVER_SESSIONS, files, rounds);
  const allPlans: PlannedRun[] = [...plans];
  // The agents lead process groups of their own: a killed host leaves them running.
  onTestFinished(() => {
    for (const pid of recordedAgents(files, allPlans)) signalGroup(pid, 'SIGKILL');
  });
  const cluster = new ServeCluster({
    cwd: options.dir,
    args: (id) => [
      '--store',
      options.store,
      '--create',
      '--host-id',
      id,
      '--lease-ttl',
      String(options.ttlMs),
      '--hibernate-after',
      String(options.hibernateAfterMs),
    ],
  });
  let started = 0;
  const nextHost = () => cluster.start(HOST_IDS[started++]!);
  // One first, so that a new store is made by one process, then the others together.
  await nextHost();
  await Promise.all([nextHost(), nextHost()]);

  const ledger = new EventLedger();
  const problems: string[] = [];
  await atMost(6, plans, (plan, i) => startRun(cluster.up()[i % 3]!.serve.url, plan));
  const phase = (n: number) =>
    atMost(8, plans, async (plan) => {
      for (const [index, step] of plan.steps.entries()) {
        if (step.phase !== n) continue;
        await sendRouted(
          cluster,
          audit,
          ledger,
          { runId: plan.runId, event: step.event, actor: step.actor, idempotencyKey: `${plan.runId}:${index}` },
          { accepts: (answer) => step.mayFindRunEnded === true && answer.error === 'InvalidTransitionError' },
        );
      }
    });
  await phase(0);
  // The working sessions' agents run before the first kill.
  const working = plans.filter((p) => p.kind === 'working session');
  await until(
    'every working session to run',
    async () => (await audit.list({ machine: 'session', state: 'running' })).length >= working.length,
    60_000,
    100,
  ).catch(async (error: Error) => {
    throw new Error(`${error.message}: ${await describeRuns(audit, working)}`);
  });

  const takeovers: Takeover[] = [];
  const pausedTakeovers: Takeover[] = [];
  const late: Answer[] = [];
  let pausesRetried = 0;
  for (let round = 1; round <= rounds; round++) {
    // The host holding the most runs is killed, the next one paused: both have runs to lose.
    const holding = await Promise.all(cluster.up().map(async (host) => ({ host, held: await heldBy(audit, host.id) })));
    const [victim, paused] = holding.sort((x, y) => y.held.size - x.held.size).map((h) => h.host);
    // Events of this phase go out while a host dies under them.
    const sending = awaitedLater(phase(round));
    // Read before the kill: the other hosts see at once that its process is gone, and claim its runs.
    const held = await heldBy(audit, victim!.id);
    const killedAt = await cluster.kill(victim!.id);
    const watching = awaitedLater(takenOver(audit, held, killedAt, `host '${victim!.id}' killed`));
    await nextHost();
    await sending;
    takeovers.push(...(await watching));

    // A pause with work in flight: sessions whose start deadline passes while the host is stopped.
    const fresh = Array.from({ length: FRESH_PER_PAUSE }, (_, i) =>
      silentSession(`paused-${round}-${i}`, files, Math.round(options.ttlMs * 0.6)),
    );
    allPlans.push(...fresh);
    for (const plan of fresh) await startRun(paused!.serve.url, plan);
    let pausedAt = cluster.pause(paused!.id);
    for (let tries = 1; await options.pausedHostBlocks?.(); tries++) {
      cluster.resume(paused!.id);
      if (tries === 20) throw new Error(`host '${paused!.id}' held the store's write lock at each of 20 pauses`);
      pausesRetried++;
      await new Promise((resolve) => setTimeout(resolve, 50));
      pausedAt = cluster.pause(paused!.id);
    }
    const heldWhilePaused = await heldBy(audit, paused!.id);
    // A client's requests to the paused host wait in its socket; it reads them once continued.
    const lateRequests = fresh.map((plan) => awaitedLater(lateInterrupt(paused!.serve.url, plan.runId, paused!.id)));
    pausedTakeovers.push(...(await takenOver(audit, heldWhilePaused, pausedAt, `host '${paused!.id}' paused`)));
    cluster.resume(paused!.id);
    for (const answer of await Promise.all(lateRequests)) {
      late.push(answer);
      if (answer.status >= 200 && answer.status < 300)
        problems.push(`host '${answer.host}' acknowledged a write after its runs were taken over: ${answer.message}`);
    }
  }

  // A graceful stop (SIGTERM) of a host with sessions running: it hands its runs over with their
  // agents running, and the others adopt them (no recovery rule, no second spawn).
  const leaving = cluster.up()[0]!;
  const handedOverSessions = Array.from({ length: HANDED_OVER_SESSIONS }, (_, i) =>
    workingSession(`handed-over-${i}`, files),
  );
  allPlans.push(...handedOverSessions);
  for (const plan of handedOverSessions) await startRun(leaving.serve.url, plan);
  await until(
    'the sessions to hand over to run',
    async () => {
      for (const plan of handedOverSessions) if ((await audit.load(plan.runId))?.state !== 'running') return false;
      return true;
    },
    60_000,
    100,
  );
  const leavingHeld = await heldBy(audit, leaving.id);
  const stoppedAt = Date.now();
  const exitCode = await cluster.stop(leaving.id);
  if (exitCode !== 0)
    problems.push(`host '${leaving.id}' stopped gracefully with exit code ${exitCode}: ${leaving.serve.stderr()}`);
  const adoptions = await takenOver(audit, leavingHeld, stoppedAt, `host '${leaving.id}' stopped`, {
    handedOver: true,
  });

  await phase(lastPhase(rounds));
  for (const plan of allPlans)
    if (plan.kind === 'working session') writeFileSync(files.releaseFile(plan.runId), 'finish\n');
  await untilSettled(audit, allPlans);

  const verdict = await auditRuns(audit, allPlans, ledger.acknowledged, files);
  problems.push(...verdict.problems);
  // An adopted session goes on where it was: its agent finishes it, no recovery rule ends it.
  for (const { runId } of handedOverSessions) {
    const run = await audit.load(runId);
    const history = await audit.history(runId);
    if (run?.state !== 'completed' || history.some((e) => e.actor === 'recovery')) {
      problems.push(
        `${runId}: handed over by '${leaving.id}' while running, it ended ${run?.state} (history: ${history.map((e) => e.event.type).join(', ')})`,
      );
    }
  }
  const losses = cluster.all().map((host) => leaseLosses(host.serve.stderr()));
  const figures: ChaosFigures = {
    store: options.store.split(':')[0]!,
    ttlMs: options.ttlMs,
    hostsStarted: started,
    runs: allPlans.length,
    acknowledgedEvents: ledger.acknowledged.length,
    historyEvents: verdict.events,
    timersFired: verdict.timers,
    recoveryEvents: verdict.recoveries,
    agentSpawns: verdict.spawns,
    takeovers: takeovers.length,
    takeoverMs: spread(takeovers),
    pausedTakeovers: pausedTakeovers.length,
    pausedTakeoverMs: spread(pausedTakeovers),
    lostRuns: losses.reduce((sum, l) => sum + l.lostRuns, 0),
    refusedLateEvents: losses.reduce((sum, l) => sum + l.refusedEvents, 0),
    lateRequests: late.length,
    lateRefusals: count(late.map((answer) => `${answer.status} ${answer.error}`)),
    pausesRetried,
    handedOver: adoptions.length,
    adoptionMs: spread(adoptions),
    clientRetries: Object.fromEntries(ledger.retried),
  };
  return { figures, problems };
}

/**
 * Starts the run, again on a connection reset (a keep-alive connection the server closed as the
 * request went out, which a busy machine makes likely): after one, a RunExistsError is the first
 * attempt having landed.
 */
async function startRun(url: string, plan: PlannedRun): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(`${url}/api/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authOf(url) },
      body: JSON.stringify({ machine: plan.machine, id: plan.runId, input: plan.input }),
    }).catch((error: Error) => {
      if (attempt < 5 && /ECONNRESET|UND_ERR_SOCKET|other side closed/.test(`${error.cause ?? ''} ${error.message}`))
        return undefined;
      throw error;
    });
    if (!response) continue;
    const text = await response.text();
    if (response.status === 201 || (attempt > 1 && response.status === 409 && text.includes('RunExistsError'))) return;
    throw new Error(`starting ${plan.runId} at ${url}: ${response.status} ${text}`);
  }
}

/** An INTERRUPT sent to a paused host: answered only once it runs again. */
async function lateInterrupt(url: string, runId: string, host: string): Promise<Answer> {
  const response = await fetch(`${url}/api/runs/${encodeURIComponent(runId)}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authOf(url) },
    body: JSON.stringify({
      event: { type: 'INTERRUPT', reason: 'sent while the host was paused' },
      idempotencyKey: `${runId}:late`,
    }),
    signal: AbortSignal.timeout(90_000),
  });
  const body = (await response.json()) as { error?: string; message?: string };
  return { host, status: response.status, error: body.error ?? '', message: body.message ?? JSON.stringify(body) };
}

function count(names: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of names) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

function spread(takeovers: readonly Takeover[]): { median: number; max: number } {
  const ms = takeovers.map((t) => t.afterMs).sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)] ?? 0, max: ms.at(-1) ?? 0 };
}

/** `promise`, awaited later: a rejection meanwhile is not reported as unhandled, and still reaches the await. */
function awaitedLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** `work` for each item, at most `limit` at a time; rejects with the first failure once all settled. */
async function atMost<T>(
  limit: number,
  items: readonly T[],
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index).catch((error: unknown) => failures.push(error));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.length) throw failures[0];
}
