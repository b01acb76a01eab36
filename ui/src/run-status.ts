/**
 * The words of the runs list's status column, and everything the list derives from them: the
 * counts at its top (from the store's counts by lifecycle, status and state) and its status filter.
 * One function says how a run reads (`statusWord`); the counts and the filter use it too.
 */
import type { MachineInfo, RunCounts, RunJson } from './api.js';
import { outcome } from './format.js';

/** Every word the column can show, in the order the counts and the filter list them. */
export const STATUS_WORDS = ['active', 'done', 'failed', 'cancelled', 'skipped', 'error', 'stopped'] as const;
export type StatusWord = (typeof STATUS_WORDS)[number];
export type Tone = 'good' | 'bad' | 'neutral' | 'ongoing';

/**
 * How a run reads (format.ts `outcome`): `active`; a finished run by the outcome its lifecycle
 * gives its final state (`outcomes`: a `rejected` expense may be an outcome, `done`, not a
 * failure), else by the state's name; `error` and `stopped` as XState says.
 */
export function statusWord(
  run: Pick<RunJson, 'machine' | 'status' | 'state'>,
  machines: readonly MachineInfo[],
): { label: StatusWord; tone: Tone } {
  const outcomes = machines.find((m) => m.name === run.machine)?.outcomes;
  return outcome(run.status, run.state, outcomes) as { label: StatusWord; tone: Tone };
}

/**
 * The counts by status word, from the store's counts by lifecycle, status and state: each word
 * that has runs, in order, with how many and the colour its runs read in.
 */
export function countsByWord(
  counts: RunCounts,
  machines: readonly MachineInfo[],
): Array<{ word: StatusWord; runs: number; tone: Tone }> {
  const byWord = new Map<StatusWord, { word: StatusWord; runs: number; tone: Tone }>();
  for (const group of counts.groups ?? []) {
    const { label, tone } = statusWord(group, machines);
    const counted = byWord.get(label) ?? { word: label, runs: 0, tone };
    counted.runs += group.runs;
    byWord.set(label, counted);
  }
  return STATUS_WORDS.flatMap((word) => byWord.get(word) ?? []);
}

/**
 * What the server is asked for a status word: XState's status (`active`, `error`, `stopped` are
 * its own), and for the words of a finished run (`done`, `failed`...), `done` with the runs kept
 * whose word it is (`keep`), since what a final state means is the lifecycle's.
 */
export function statusQuery(
  word: string,
  machines: readonly MachineInfo[],
): { status?: string; keep?: (run: RunJson) => boolean } {
  if (word === '') return {};
  if (word === 'active' || word === 'error' || word === 'stopped') return { status: word };
  return { status: 'done', keep: (run) => statusWord(run, machines).label === word };
}
