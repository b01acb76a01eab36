/**
 * The project's task as one agent's tools reach it (task-tools.ts): on the project's store, opened
 * for the call as `statewright task` does (`storePort`), or through a running serve with the agent's
 * role credential (`serverPort`, task-server.ts). The tools are written once against this.
 */
import type { AgentId } from '../../machines/index.js';
import { ServerRefusedError } from '../client/server-client.js';
import { claimIfSeated, describeTask, describeTaskJson, runCheck } from '../client/task-session.js';
import type { RunSnapshot } from '../runtime/run-snapshot.js';
import type { RunJson } from '../serve/run-json.js';
import { holdingLease, pollTask } from '../task/hold-lease.js';
import type { TaskSettings } from '../task/limits.js';
import { TASK_RUN_ID, type TaskSession } from '../task/task-service.js';
import type { TaskServer } from './task-server.js';

const CHECK_RUNNING = 'Active.Working.Checking.Running';

/** The task at one commit: its state, its context, and the few lines that show it. */
export interface TaskNow {
  readonly state: string;
  readonly context: unknown;
  describe(): string;
}

type TaskEventOf = { readonly type: string; readonly [field: string]: unknown };

export interface TaskPort {
  /** `[limits] wait_timeout_secs` of the project's ferrus.toml. */
  readonly waitTimeoutSecs: number;
  /** The committed task; NoTaskError (the store) or a 404 (serve) when there is none. */
  current(): Promise<TaskNow>;
  /** Sends `event` from the port's agent and answers the committed task. */
  send(event: TaskEventOf, reason: string): Promise<TaskNow>;
  /** Claims where the agent's role has a seat; elsewhere goes on (the machine judges the action itself). */
  claimIfSeated(): Promise<void>;
  /** Heartbeats while `body` runs (see hold-lease.ts). */
  holdingLease<T>(body: (signal: AbortSignal) => Promise<T>): Promise<T>;
  waitFor(
    done: (task: TaskNow) => boolean,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<TaskNow | undefined>;
  /** The last event the task took. */
  lastEvent(): Promise<{ type: string; interrupted?: boolean } | undefined>;
  /** Runs the checks (this process, or serve, whichever hosts the check runner) and answers the task once they are done. */
  check(): Promise<TaskNow>;
}

const fromSnapshot = (run: RunSnapshot): TaskNow => ({
  state: run.state,
  context: run.context,
  describe: () => describeTask(run),
});

/** The task on the project's store, through the session this call opened. */
export function storePort(session: TaskSession, agent: AgentId): TaskPort {
  return {
    waitTimeoutSecs: session.settings.limits.waitTimeoutSecs,
    current: async () => fromSnapshot(await session.current()),
    send: async (event, reason) => fromSnapshot(await session.send(agent, event as never, reason)),
    claimIfSeated: () => claimIfSeated(session, agent),
    holdingLease: (body) => session.holdingLease(agent, body),
    waitFor: async (done, options) => {
      const run = await session.waitFor((run) => done(fromSnapshot(run)), options);
      return run && fromSnapshot(run);
    },
    lastEvent: async () =>
      (await session.runtime.history(TASK_RUN_ID)).at(-1)?.event as { type: string; interrupted?: boolean } | undefined,
    check: async () => fromSnapshot(await runCheck(session, agent)),
  };
}

const fromJson = (run: RunJson): TaskNow => ({
  state: run.state,
  context: run.context,
  describe: () => describeTaskJson(run),
});

/** The same refusal as the store's, answered by serve: an error with the name of the machine's. */
const refusedAs = (error: unknown, name: string) => error instanceof ServerRefusedError && error.name === name;

/** The task through serve with `agent`'s role credential: serve hosts the run and runs its checks. */
export function serverPort(api: TaskServer, agent: AgentId, settings: TaskSettings): TaskPort {
  const send = async (event: TaskEventOf, reason: string) => fromJson(await api.send({ ...event, agent }, reason));
  const current = async () => fromJson(await api.current());
  const port: TaskPort = {
    waitTimeoutSecs: settings.limits.waitTimeoutSecs,
    current,
    send,
    async claimIfSeated() {
      try {
        await send({ type: 'claim' }, 'claimed by statewright mcp');
      } catch (error) {
        const noSeat =
          refusedAs(error, 'RoleError') ||
          (refusedAs(error, 'InvalidTransitionError') && /cannot apply event 'claim'/.test((error as Error).message));
        if (!noSeat) throw error;
      }
    },
    holdingLease: (body) =>
      holdingLease(
        () => send({ type: 'heartbeat' }, 'heartbeat while working'),
        settings.lease.heartbeatIntervalSecs * 1000,
        (error) => refusedAs(error, 'LeaseError'),
        body,
      ),
    waitFor: (done, options) => pollTask(current, done, { ...options, pollMs: 250 }),
    lastEvent: async () => (await api.history()).at(-1)?.event as { type: string; interrupted?: boolean } | undefined,
    async check() {
      await current();
      await port.claimIfSeated();
      await send({ type: 'check' }, 'check through statewright mcp');
      return port.holdingLease(
        async (signal) =>
          (await pollTask(current, (task) => task.state !== CHECK_RUNNING, {
            timeoutMs: Number.POSITIVE_INFINITY,
            signal,
            pollMs: 250,
          })) ?? current(),
      );
    },
  };
  return port;
}
