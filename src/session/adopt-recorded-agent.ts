/**
 * A host that finds a session its dead predecessor left active (a crash, or a takeover of its
 * lease) leaves it to the session's restored agent actor when an agent was recorded: a Claude still
 * running is adopted, as a handed-over one is, so a session waiting for a person still waits (its
 * `statewright mcp` holds Claude's call open meanwhile); one that ended meanwhile has whatever it
 * wrote (its result, its cost) read from its log and reported before its exit decides how the
 * session ends ("process gone before restart"). The seed's orphan rule (machines/session/recover.ts)
 * still fails a session that recorded no agent: nothing was spawned that could be adopted.
 *
 * A serve's rule (src/serve/lifecycle-host.ts): the session daemon embedded on its own keeps the
 * seed's rule as hld has it, failing the orphans and stopping their agents.
 */
import type { Lifecycles, RecoveringRun } from '../../machines/lifecycle.js';

export function adoptingRecordedAgents(lifecycles: Lifecycles): Lifecycles {
  const session = Object.hasOwn(lifecycles, 'session') ? lifecycles.session : undefined;
  const recover = session?.recover;
  if (!session || !recover) return lifecycles;
  return {
    ...lifecycles,
    session: {
      ...session,
      recover: (run: RecoveringRun) => ((run.snapshot.context as { agent?: unknown }).agent ? [] : recover(run)),
    },
  };
}
