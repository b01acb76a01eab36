/**
 * The runs the chaos tests host: three lifecycles, with durable timers and stand-in agents, and
 * the events a client sends them over the test's phases (phase 0 right after they start, one phase
 * per round of kills and pauses, and a last one). Each plan says what its run must end as, judged
 * from the store alone: the history a run must hold follows from the events acknowledged, the
 * timers armed and the agents spawned, whichever host did it.
 *
 *   execution         events only (no actor, no timer): idle between events, so it sleeps
 *                     (hibernates) and is woken by its next event on whichever host gets it
 *   task              create_task, then an executor's claim arms the lease timer (durable):
 *                     lease_expired must fire exactly once; a long lease sleeps until it is due
 *   silent session    its agent never reports a session id: the start timeout fires (once), unless
 *                     a takeover found its host gone first and orphaned it (the recovery rule)
 *   working session   its agent runs until a file tells it to finish: completed, or interrupted
 *                     by a client, or orphaned by a takeover
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EventRecord, StoredRun } from '../../src/stores/store.js';

const agents = fileURLToPath(new URL('../../examples/agents/', import.meta.url));

export type RunKind = 'execution' | 'task' | 'silent session' | 'working session';

export interface PlannedStep {
  readonly phase: number;
  readonly event: { type: string; [key: string]: unknown };
  readonly actor: string;
  /** A step the run may refuse as invalid, because a host's recovery may have ended the run first (an orphaned session). */
  readonly mayFindRunEnded?: boolean;
}

export interface PlannedRun {
  readonly runId: string;
  readonly machine: 'execution' | 'task' | 'session';
  readonly kind: RunKind;
  readonly input: unknown;
  readonly steps: readonly PlannedStep[];
}

/** Where the stand-in agents record their spawns and wait for their release. */
export interface AgentFiles {
  /** One file per run: the stand-in appends its pid to it each time it is spawned. */
  spawnLog(runId: string): string;
  /** A working session's agent finishes once this file exists. */
  releaseFile(runId: string): string;
  readonly spawnDir: string;
}

export function agentFiles(dir: string): AgentFiles {
  const spawnDir = join(dir, 'spawns');
  const releaseDir = join(dir, 'release');
  mkdirSync(spawnDir, { recursive: true });
  mkdirSync(releaseDir, { recursive: true });
  return { spawnDir, spawnLog: (runId) => join(spawnDir, runId), releaseFile: (runId) => join(releaseDir, runId) };
}

/** The last phase: the one after every round. */
export const lastPhase = (rounds: number) => rounds + 1;

const EXECUTION_PATHS = [
  ['ENQUEUE', 'START', 'RECOVER', 'START', 'SUCCEED'],
  ['HOLD', 'APPROVE', 'START', 'CANCEL_GRACEFUL', 'COMPLETE'],
  ['WAIT', 'TIMER_DONE', 'START', 'RECOVER', 'FAIL'],
] as const;

const SUPERVISOR = 'supervisor:chaos:1';
const EXECUTOR = 'executor:chaos:1';

/** A silent session started on a host about to be paused: its start deadline passes while it is stopped. */
export function silentSession(runId: string, files: AgentFiles, startTimeoutMs: number): PlannedRun {
  return {
    runId,
    machine: 'session',
    kind: 'silent session',
    input: {
      query: 'Say nothing.',
      config: {
        command: [join(agents, 'silent.sh')],
        env: { STANDIN_SPAWN_LOG: files.spawnLog(runId), STANDIN_LIFETIME_S: '240' },
        start_timeout_ms: startTimeoutMs,
      },
    },
    steps: [],
  };
}

/** A working session: its agent runs until its release file exists. */
export function workingSession(runId: string, files: AgentFiles, steps: PlannedStep[] = []): PlannedRun {
  return {
    runId,
    machine: 'session',
    kind: 'working session',
    input: {
      query: 'Work until released.',
      config: {
        command: [join(agents, 'until-file.sh')],
        env: {
          STANDIN_SPAWN_LOG: files.spawnLog(runId),
          STANDIN_RELEASE_FILE: files.releaseFile(runId),
          STANDIN_LIFETIME_S: '240',
        },
      },
    },
    steps,
  };
}

/**
 * `count` runs, a mix of the four kinds, whose events are spread over `rounds + 2` phases (the
 * execution paths have 5 events: rounds is 3). Timers are spread over the test's length.
 */
export function chaosWorkload(count: number, files: AgentFiles, rounds = 3): PlannedRun[] {
  if (rounds !== 3) throw new Error(`the workload spreads its events over 3 rounds, not ${rounds}`);
  const runs: PlannedRun[] = [];
  for (let i = 0; i < count; i++) {
    const kind = (['execution', 'task', 'silent session', 'working session'] as const)[i % 4]!;
    const n = Math.floor(i / 4);
    const runId = `${kind.replace(' ', '-')}-${n}`;
    if (kind === 'execution') {
      const path = EXECUTION_PATHS[n % EXECUTION_PATHS.length]!;
      runs.push({
        runId,
        machine: 'execution',
        kind,
        input: {},
        steps: path.map((type, phase) => ({ phase, event: { type }, actor: 'chaos-client' })),
      });
    } else if (kind === 'task') {
      // A short lease stays in memory (its deadline is near); a long one sleeps until it is due.
      const ttlMs = n % 2 ? 3000 : 8000;
      runs.push({
        runId,
        machine: 'task',
        kind,
        input: { lease: { ttlMs } },
        steps: [
          { phase: 0, event: { type: 'create_task', agent: SUPERVISOR, task: `Chaos task ${n}` }, actor: SUPERVISOR },
          { phase: 1 + (n % rounds), event: { type: 'claim', agent: EXECUTOR }, actor: EXECUTOR },
        ],
      });
    } else if (kind === 'silent session') {
      runs.push(silentSession(runId, files, 2000 + (n % 10) * 1500));
    } else {
      // Every fourth is interrupted by a client; the others finish when released, after the rounds.
      runs.push(
        workingSession(
          runId,
          files,
          n % 4 === 0
            ? [
                {
                  phase: 2,
                  event: { type: 'INTERRUPT', reason: 'chaos client' },
                  actor: 'chaos-client',
                  mayFindRunEnded: true,
                },
              ]
            : [],
        ),
      );
    }
  }
  return runs;
}

/** Whether the run has done all it will do: what the last check waits for. */
export function settled(plan: PlannedRun, run: StoredRun | undefined, history: readonly EventRecord[]): boolean {
  if (!run) return false;
  if (plan.kind === 'task') return history.some((e) => e.event.type === 'lease_expired');
  return run.status === 'done';
}

const types = (history: readonly EventRecord[]) => history.map((e) => e.event.type);

/** What is wrong with a settled run's end, judged from its row and history; none when right. */
export function endProblems(plan: PlannedRun, run: StoredRun, history: readonly EventRecord[]): string[] {
  const problems: string[] = [];
  const seen = types(history);
  const count = (type: string) => seen.filter((t) => t === type).length;
  const expect = (ok: boolean, what: string) =>
    void (ok || problems.push(`${plan.runId}: ${what} (history: ${seen.join(', ') || 'empty'}; state ${run.state})`));
  if (plan.kind === 'execution') {
    // No timer, no actor, no recovery rule: the history is exactly the events sent, in order.
    expect(
      seen.join() === plan.steps.map((s) => s.event.type).join(),
      `history is not the ${plan.steps.length} events sent`,
    );
  } else if (plan.kind === 'task') {
    expect(
      seen.join() === 'create_task,claim,lease_expired',
      'history is not create_task, claim, then the lease timer once',
    );
  } else {
    expect(count('agent.spawned') <= 1, 'agent spawned more than once');
    // An interrupt is one ending however it ends: the agent's exit, the grace's INTERRUPT, a takeover's orphan rule.
    const interrupted = count('INTERRUPT') > 0 ? 1 : 0;
    const endings = ['START_TIMEOUT', 'SESSION_ORPHANED'].map(count).reduce((a, b) => a + b, interrupted);
    if (plan.kind === 'silent session') {
      expect(
        run.state === 'failed' && endings === 1,
        'a silent session must fail once: by its start timeout, or orphaned by a takeover',
      );
    } else {
      const completed = run.state === 'completed' && endings === 0;
      expect(
        completed || (run.state === 'failed' && endings >= 1 && endings - interrupted <= 1),
        'a working session must complete, or fail once (interrupted or orphaned)',
      );
    }
  }
  return problems;
}
