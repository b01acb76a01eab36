/** One step of a run's audit trail as `statewright history` prints it: XState's own events and actors in words. */
import type { AnyStateMachine } from 'xstate';
import { actorWords, eventWords } from '../graph/event-words.js';
import type { EventRecord } from '../stores/store.js';

/** How much of an event's payload a history line shows: a large event would bury every other line. */
export const HISTORY_PAYLOAD_CHARS = 500;

/**
 * "   4  2026-...Z  managerApproval --after managerTimeout (20 s)--> timedOut": the step's number,
 * time, the states on either side and its event in words (`eventWords`), its payload, who sent it
 * and why, and the credential it came with (`via session:<id>`). `machine`: the run's, or undefined for a lifecycle the registry lacks (words from the
 * event types alone).
 */
export function historyLine(e: EventRecord, machine: AnyStateMachine | undefined): string {
  // XState's own moves name their actor as the run knows it: an invoke by its actor's name, a delay by none.
  const actor = e.actor === 'xstate' ? undefined : e.actor && actorWords(machine, e.actor);
  return wordedHistoryLine(e, eventWords(machine, e.event.type), actor);
}

/**
 * `historyLine` with the event and its actor already in words (`label`, `actorLabel`), as a
 * running serve's `GET /api/runs/:id/history` gives them.
 */
export function wordedHistoryLine(e: EventRecord, label: string, actor: string | undefined): string {
  const { type: _type, at: _at, ...payload } = e.event;
  // The credential it came with (serve's name for it) follows the name the sender gave: that one no request forges.
  const who = [actor && `by ${actor}`, e.reason && `(${e.reason})`, e.credential && `via ${e.credential}`]
    .filter(Boolean)
    .join(' ');
  const data = Object.keys(payload).length ? ` ${shortened(JSON.stringify(payload))}` : '';
  return `${String(e.seq).padStart(4)}  ${new Date(e.at).toISOString()}  ${e.before} --${label}--> ${e.after}${data}${who ? `  ${who}` : ''}`;
}

function shortened(payload: string): string {
  if (payload.length <= HISTORY_PAYLOAD_CHARS) return payload;
  return `${payload.slice(0, HISTORY_PAYLOAD_CHARS)}... [${Buffer.byteLength(payload)} bytes, shortened: \`history --json\` prints it whole]`;
}
