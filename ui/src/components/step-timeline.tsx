import type { HistoryEntry, RunJson } from '../api.js';
import { duration, time, toDate } from '../format.js';

/** One stay of the run in a state: from the step that entered it to the next step, or now. */
interface Stay {
  state: string;
  /** The step that entered it (0: the run's start). */
  seq: number;
  from: number;
  to: number;
  /** The run still rests here. */
  open: boolean;
  /** Steps that kept it in the state (an agent's report, a note): folded into the stay, not rows of their own. */
  within: number;
}

/**
 * The run's stays in order: its start state until the first step, then each step's `after` until
 * the next step that leaves it (steps that keep it where it is, a session's agent reports, count in
 * the stay's `within`).
 */
export function staysOf(run: RunJson, events: readonly HistoryEntry[], now = Date.now()): Stay[] {
  const start = toDate(run.createdAt).getTime();
  const resting = run.status === 'active';
  const end = resting ? Math.max(now, start) : toDate(run.updatedAt).getTime();
  const stays: Stay[] = [];
  const first = events[0];
  stays.push({ state: first?.before ?? run.state, seq: 0, from: start, to: end, open: !first && resting, within: 0 });
  for (const entry of events) {
    const last = stays[stays.length - 1]!;
    if (entry.after === last.state) {
      last.within++;
      continue;
    }
    const at = toDate(entry.at).getTime();
    last.to = at;
    stays.push({ state: entry.after, seq: entry.seq, from: at, to: end, open: resting, within: 0 });
  }
  for (const stay of stays.slice(0, -1)) stay.open = false;
  return stays;
}

/**
 * Where the run spent its time, a row per stay in a state (as Temporal's compact view): the state,
 * how long, and a bar placed on the run's whole span, so a long wait stands out at a glance. The
 * last row of an active run grows until it moves.
 */
export function StepTimeline({ run, events }: { run: RunJson; events: readonly HistoryEntry[] }) {
  const stays = staysOf(run, events);
  const start = stays[0]!.from;
  const span = Math.max(1, stays[stays.length - 1]!.to - start);
  return (
    <ol class="timeline">
      {stays.map((stay) => (
        <li key={stay.seq} data-seq={stay.seq} class={stay.open ? 'open' : undefined}>
          <span class="timeline-state" title={`entered ${time(stay.from)}${stay.seq ? ` by step ${stay.seq}` : ''}`}>
            {stay.state}
          </span>
          <span class="timeline-took">
            {stay.within > 0 && (
              <span class="muted">
                {stay.within} {stay.within === 1 ? 'step' : 'steps'} in it,{' '}
              </span>
            )}
            {duration(stay.to - stay.from)}
            {stay.open && ' so far'}
          </span>
          <span class="timeline-track" aria-hidden="true">
            <span
              class="timeline-bar"
              style={{
                left: `${((stay.from - start) / span) * 100}%`,
                width: `${Math.max(0.5, ((stay.to - stay.from) / span) * 100)}%`,
              }}
            />
          </span>
        </li>
      ))}
    </ol>
  );
}
