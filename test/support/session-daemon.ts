/** A session daemon wired as an app wires it: a runtime on the store with the session lifecycle's actors, the daemon attached. */
import { lifecycles } from '../../machines/index.js';
import { createRuntime, type RuntimeOptions } from '../../src/runtime/index.js';
import type { SessionStatus } from '../../machines/session/index.js';
import { sessionLifecycle, type SessionDaemon, type SessionLifecycleOptions } from '../../src/session/index.js';
import type { Store } from '../../src/stores/index.js';

export type DaemonOptions = SessionLifecycleOptions & { store: Store } & Pick<
    RuntimeOptions,
    'clock' | 'owner' | 'onLog' | 'onError'
  >;

/** The daemon; its owner closes `daemon.runtime` after `daemon.close()`, then the store. */
export async function startDaemon({
  store,
  clock,
  owner,
  onLog,
  onError,
  ...lifecycle
}: DaemonOptions): Promise<SessionDaemon> {
  const sessions = sessionLifecycle(lifecycle);
  const runtime = await createRuntime({
    store,
    machines: lifecycles,
    actors: sessions.actors,
    ...(clock && { clock }),
    ...(owner && { owner }),
    ...(onLog && { onLog }),
    ...(onError && { onError }),
  });
  return sessions.attach(runtime);
}

/** Resolves once the session is in one of `statuses` (now or after a committed change); fails after `timeoutMs`. */
export function reaches(daemon: SessionDaemon, id: string, statuses: SessionStatus[], timeoutMs = 20_000) {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => done(new Error(`session ${id} did not reach ${statuses.join(' or ')} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const stop = daemon.onStatusChanged((c) => c.session_id === id && statuses.includes(c.new_status) && done());
    function done(error?: Error) {
      clearTimeout(timer);
      stop();
      if (error) reject(error);
      else resolve();
    }
    void daemon.get(id).then((s) => statuses.includes(s.status) && done(), done);
  });
}
