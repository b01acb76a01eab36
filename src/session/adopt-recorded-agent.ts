/**
 * A host that finds a session its dead predecessor left active (a crash, or a takeover of its
 * lease) leaves it to the session's restored agent actor when an agent was recorded: a Claude still
 * running is adopted, as a handed-over one is, so a session waiting for a person still waits (its
 * `statewright mcp` holds Claude's call open meanwhile); one that ended meanwhile has whatever it
 * wrote (its result, its cost) read from its log and reported before its exit decides how the
 * session ends ("process gone before restart"). The seed's orphan rule (machines/session/recover.ts)
 * still fails a session that recorded no agent (nothing was spawned that could be adopted) and one
 * whose host was on another machine, or is not known (its agent's pid means nothing here; the
 * restored actor, stopped by that rule before it starts, ends the agent if it does run here).
 *
 * Safe against a predecessor that was only paused (SIGSTOP) and wakes to find its lease taken: a
 * host that loses a run lets go of its agent without signalling it (HostedRun.lose), as a
 * hand-over does, so it never stops an agent this host has adopted.
 *
 * A serve's rule (src/serve/lifecycle-host.ts): the session daemon embedded on its own keeps the
 * seed's rule as hld has it, failing the orphans and stopping their agents.
 */
import type { Lifecycles, RecoveringRun } from '../../machines/lifecycle.js';
import { thisHost } from '../os/process-identity.js';

/** The agent can be adopted: it was recorded, by a host on this machine (a pid means nothing on another). */
function adoptable(run: RecoveringRun): boolean {
  return Boolean((run.snapshot.context as { agent?: unknown }).agent) && run.previousOwner?.host === thisHost();
}

export function adoptingRecordedAgents(lifecycles: Lifecycles): Lifecycles {
  const session = Object.hasOwn(lifecycles, 'session') ? lifecycles.session : undefined;
  const recover = session?.recover;
  if (!session || !recover) return lifecycles;
  return {
    ...lifecycles,
    session: {
      ...session,
      recover: (run: RecoveringRun) => (adoptable(run) ? [] : recover(run)),
    },
  };
}
