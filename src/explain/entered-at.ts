import type { EventRecord } from '../stores/store.js';

/**
 * When the run entered `state`: the latest step that came into it from another state, walking
 * back over the steps that stayed in it (self transitions, updates). The run's start when no step
 * ever left it.
 */
export function enteredAt(history: readonly EventRecord[], state: string, createdAt: number): number {
  for (let i = history.length - 1; i >= 0; i--) {
    const record = history[i]!;
    if (record.after !== state) break;
    if (record.before !== state) return record.at;
  }
  return createdAt;
}
