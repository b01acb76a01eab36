/** Timestamps arrive as ms epoch or ISO text; both become a Date. */
export const toDate = (at: number | string) => new Date(typeof at === 'number' ? at : Date.parse(at));

/** "4 s", "12 min", "3 h", "2 d": how long ago, coarse enough to read at a glance. */
export function age(at: number | string, now = Date.now()) {
  const seconds = Math.max(0, Math.round((now - toDate(at).getTime()) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

export const time = (at: number | string) => toDate(at).toLocaleString();

/** "just now", "3 min ago", "2 d ago": for text whose title gives the absolute `time`. */
export function ago(at: number | string, now = Date.now()) {
  const elapsed = age(at, now);
  return elapsed === '0 s' ? 'just now' : `${elapsed} ago`;
}

/** A field whose name says it holds a time: `created_at`, `startedAt`, `at`. */
const TIME_FIELD = /(^at$|_at$|[a-z]At$)/;
/** Epoch milliseconds from 1973 to 5138: a smaller or larger number is not read as a time. */
const isEpochMs = (value: unknown): value is number => typeof value === 'number' && value > 1e11 && value < 1e14;

/** JSON of a payload, context or input, with the epoch-millisecond fields its names call times shown as times. */
export function json(value: unknown, indent?: number) {
  return JSON.stringify(
    value,
    (key, field) => (TIME_FIELD.test(key) && isEpochMs(field) ? toDate(field).toLocaleString() : field),
    indent,
  );
}

/** An event's payload without its type, as compact JSON, or nothing when it has none. */
export function payload(event: { type: string; [field: string]: unknown }) {
  const { type: _type, ...rest } = event;
  return Object.keys(rest).length ? json(rest) : '';
}

/**
 * How a run reads: its status, and for a finished run its final state's outcome, since a run that
 * ends in `failed` or `cancelled` is `done` to XState: the lifecycle's (`outcomes`, from
 * `GET /api/machines`), else read from the state's name as the server does for a lifecycle that
 * names none. `tone` is the colour: good, bad, neutral, ongoing.
 */
export function outcome(
  status: string,
  state: string,
  outcomes?: Readonly<Record<string, string>>,
): { label: string; tone: 'good' | 'bad' | 'neutral' | 'ongoing' } {
  if (status === 'active') return { label: 'active', tone: 'ongoing' };
  if (status !== 'done') return { label: status, tone: 'bad' };
  const declared = outcomes?.[state];
  if (declared)
    return { label: declared, tone: declared === 'done' ? 'good' : declared === 'skipped' ? 'neutral' : 'bad' };
  if (/cancel|abort|kill/i.test(state)) return { label: 'cancelled', tone: 'bad' };
  if (/fail|crash|error|reject|denied|timed?.?out|expired|orphan/i.test(state)) return { label: 'failed', tone: 'bad' };
  if (/skip/i.test(state)) return { label: 'skipped', tone: 'neutral' };
  return { label: 'done', tone: 'good' };
}

/** "850 ms", "4.2 s", "3 min 5 s", "2 h 10 min", "3 d 4 h": a span of time, two units at most. */
export function duration(ms: number) {
  const span = Math.max(0, ms);
  if (span < 1000) return `${Math.round(span)} ms`;
  if (span < 10_000) return `${(span / 1000).toFixed(1)} s`;
  const seconds = Math.round(span / 1000);
  const two = (big: number, bigUnit: string, small: number, smallUnit: string) =>
    small ? `${big} ${bigUnit} ${small} ${smallUnit}` : `${big} ${bigUnit}`;
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return two(Math.floor(seconds / 60), 'min', seconds % 60, 's');
  if (seconds < 86_400) return two(Math.floor(seconds / 3600), 'h', Math.floor((seconds % 3600) / 60), 'min');
  return two(Math.floor(seconds / 86_400), 'd', Math.floor((seconds % 86_400) / 3600), 'h');
}

/** "14:03:27" today, "Dec 4 14:03" another day: when something happened, short enough for a column (its title gives `time`). */
export function clock(at: number | string, now = Date.now()) {
  const date = toDate(at);
  const today = new Date(now).toDateString() === date.toDateString();
  return today
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : date.toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}
