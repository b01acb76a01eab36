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

/** An event's payload without its type, as compact JSON, or nothing when it has none. */
export function payload(event: { type: string; [field: string]: unknown }) {
  const { type: _type, ...rest } = event;
  return Object.keys(rest).length ? JSON.stringify(rest) : '';
}
