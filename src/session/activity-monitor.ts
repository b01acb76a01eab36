/**
 * The seed's activity monitoring: every 30 s (by default), warn about each active session that
 * has been quiet for longer than a configurable limit. Time and timers come from the runtime's
 * clock, so tests drive it with `ManualClock`.
 *
 * The seed logs a warning on every check; a session waiting overnight for a person would then
 * warn 120 times an hour. By default a session is reported once per quiet period (again only
 * after new activity and a new silence), and a session waiting for a person (`waiting_input`: its
 * tool call waits for an approval) is not reported at all: it is not stuck, a person is to act.
 * `repeat: true` gives the seed's every-check behaviour, for every active session.
 */
import type { SessionRun, SessionStatus } from '../../machines/session/index.js';
import type { Clock } from '../actor-contract/clock.js';
import { inactiveSessions } from './queries.js';

export const DEFAULT_ACTIVITY_CHECK_INTERVAL_MS = 30_000;

export interface InactivityWarning {
  readonly session_id: string;
  readonly status: SessionStatus;
  readonly last_activity_at: number;
  readonly inactive_ms: number;
  /** "Session s1 inactive for 5m 3s", as the seed words it. */
  readonly message: string;
}

export interface ActivityMonitorOptions {
  readonly clock: Clock;
  /** The sessions to look at, read afresh at every check (for example the runtime's list of sessions). */
  readonly sessions: () => Iterable<SessionRun> | Promise<Iterable<SessionRun>>;
  /** A session quiet for longer than this is reported. */
  readonly inactivityLimitMs: number;
  readonly intervalMs?: number;
  readonly warn: (warning: InactivityWarning) => void;
  /** Warn on every check, as the seed does, instead of once per quiet period, waiting sessions too. */
  readonly repeat?: boolean;
  /** Where a failed check is reported; without it the failure is an unhandled rejection. */
  readonly onError?: (error: unknown) => void;
}

export interface ActivityMonitor {
  /** Checks now; resolves with the warnings given. */
  check(): Promise<InactivityWarning[]>;
  stop(): void;
}

export function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  const parts = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor((s % 86_400) / 3_600), 'h'],
    [Math.floor((s % 3_600) / 60), 'm'],
    [s % 60, 's'],
  ] as const;
  const shown = parts.filter(([n]) => n > 0).map(([n, unit]) => `${n}${unit}`);
  return shown.length ? shown.join(' ') : `${ms}ms`;
}

/** Starts checking every `intervalMs`; the first check is one interval after the start. */
export function startActivityMonitor(options: ActivityMonitorOptions): ActivityMonitor {
  const interval = options.intervalMs ?? DEFAULT_ACTIVITY_CHECK_INTERVAL_MS;
  for (const [name, value] of [
    ['intervalMs', interval],
    ['inactivityLimitMs', options.inactivityLimitMs],
  ] as const) {
    if (!(Number.isFinite(value) && value > 0))
      throw new RangeError(`Activity monitor: ${name} must be a positive number of milliseconds, got ${value}`);
  }
  /** session id -> the last_activity_at already warned about */
  const warned = new Map<string, number>();
  let timer: unknown;
  let stopped = false;
  let checking = false;

  async function check(): Promise<InactivityWarning[]> {
    const runs = await options.sessions();
    const now = options.clock.now();
    const warnings: InactivityWarning[] = [];
    const quiet = new Set<string>();
    for (const { session, inactive_ms } of inactiveSessions(runs, now, options.inactivityLimitMs)) {
      // Waiting for a person's approval: quiet is what waiting looks like.
      if (!options.repeat && session.status === 'waiting_input') continue;
      quiet.add(session.session_id);
      if (!options.repeat && warned.get(session.session_id) === session.last_activity_at) continue;
      warned.set(session.session_id, session.last_activity_at);
      const warning: InactivityWarning = {
        session_id: session.session_id,
        status: session.status,
        last_activity_at: session.last_activity_at,
        inactive_ms,
        message: `Session ${session.session_id} inactive for ${formatDuration(inactive_ms)}`,
      };
      warnings.push(warning);
      options.warn(warning);
    }
    for (const id of warned.keys()) if (!quiet.has(id)) warned.delete(id);
    return warnings;
  }

  function schedule() {
    timer = options.clock.setTimeout(() => {
      if (stopped) return;
      schedule();
      // A check still running when the next falls due is not doubled.
      if (checking) return;
      checking = true;
      check()
        .catch((error: unknown) => {
          if (!options.onError) throw error;
          options.onError(error);
        })
        .finally(() => {
          checking = false;
        });
    }, interval);
  }
  schedule();

  return {
    check,
    stop() {
      stopped = true;
      options.clock.clearTimeout(timer);
    },
  };
}
