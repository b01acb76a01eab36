/**
 * The events a chart draws quietly: those no person sends (an agent's reports, `after` delays,
 * XState's done and error events, a driver's bookkeeping). On an arrow they fold into one muted
 * line, so a chart whose agents report a dozen kinds of event still reads as its states and the
 * decisions between them; the folded labels stay on the arrow, for its tooltip and for the view to
 * ask for the chart with every event written out.
 */
import type { ChartTransition } from './chart-transitions.js';

/** Whether the chart draws an event quietly, by its type (`''` for `always`). */
export type QuietEvent = (eventType: string) => boolean;

/** The events only a machine's actors and XState send: agents' reports, delays, done and error events. */
export const ACTOR_EVENT = /^(agent|xstate|done|error)\./;

/** An arrow with its quiet labels folded into its last line (`quiet`: the labels folded, none when nothing was). */
export interface FoldedTransition extends ChartTransition {
  readonly quiet?: readonly string[];
}

/** The line that stands for `count` quiet labels: the label itself for one, else how many. */
export const foldedLine = (quiet: readonly string[], alone: boolean) =>
  quiet.length === 1 ? quiet[0]! : `${alone ? '' : '+'}${quiet.length} internal events`;

/** The arrow with the labels of quiet events folded into one line after the others. */
export function foldQuiet(transition: ChartTransition, isQuiet: QuietEvent): FoldedTransition {
  const loud: string[] = [];
  const loudEvents: string[] = [];
  const quiet: string[] = [];
  const quietEvents: string[] = [];
  transition.labels.forEach((label, i) => {
    const event = transition.events[i] ?? '';
    if (event !== '' && isQuiet(event)) {
      quiet.push(label);
      quietEvents.push(event);
    } else {
      loud.push(label);
      loudEvents.push(event);
    }
  });
  if (quiet.length === 0) return transition;
  return {
    ...transition,
    labels: [...loud, foldedLine(quiet, loud.length === 0)],
    events: [...loudEvents, quietEvents.join(' ')],
    quiet,
  };
}
