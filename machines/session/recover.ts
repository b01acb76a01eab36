import type { EventObject } from 'xstate';
import type { RecoveringRun } from '../lifecycle.js';
import type { SessionEvent } from './events.js';
import { session } from './status.js';

/**
 * The seed's orphan rule, as the registry's recovery hook: a session that a previous daemon left
 * in starting, running or waiting_input fails with "Session orphaned due to daemon restart". A run
 * whose previous owner is still alive belongs to another live daemon and is left alone.
 */
export function recoverSession(run: RecoveringRun): EventObject[] {
  if (!session.isState(run.snapshot.value) || session.isTerminal(run.snapshot.value)) return [];
  if (run.previousOwner?.alive) return [];
  const orphaned: SessionEvent = { type: 'SESSION_ORPHANED', at: run.now };
  return [orphaned];
}
