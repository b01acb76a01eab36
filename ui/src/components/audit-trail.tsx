import type { HistoryEntry } from '../api.js';
import { ago, payload, time } from '../format.js';

/** Every committed event of the run: what, who, why, when, and the states on either side. */
export function AuditTrail({ events }: { events: HistoryEntry[] }) {
  if (events.length === 0) return <p class="muted">No events yet: the run rests where it started.</p>;
  return (
    <table class="audit">
      <thead>
        <tr>
          <th>#</th>
          <th>event</th>
          <th>actor</th>
          <th>reason</th>
          <th>time</th>
          <th>before → after</th>
        </tr>
      </thead>
      <tbody>
        {[...events].reverse().map((entry) => (
          <tr key={entry.seq}>
            <td>{entry.seq}</td>
            <td>
              <code title={entry.event.type}>{entry.label ?? entry.event.type}</code>{' '}
              <span class="muted">{payload(entry.event)}</span>
            </td>
            <td>
              {entry.actor}
              {entry.credential && <span class="muted"> via {entry.credential}</span>}
            </td>
            <td>{entry.reason}</td>
            <td title={time(entry.at)}>{ago(entry.at)}</td>
            <td>
              {entry.before} → {entry.after}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
