import type { EventSamples } from '../harness.js';

/** What the every-path suite needs to know about a lifecycle beyond its machine. */
export interface LifecycleModel {
  /**
   * The seed's transition table, copied from the seed document as the independent oracle:
   * `[source, event, target]`. The machine's one-step graph must equal it plus `additions`.
   */
  readonly seedTable: ReadonlyArray<readonly [string, string, string]>;
  /** Edges the real project adds on top of the seed, each with why. */
  readonly additions?: ReadonlyArray<readonly [string, string, string, string]>;
  /** Concrete events with payloads, valid and invalid, for event types that need them. */
  readonly samples?: EventSamples;
  readonly input?: unknown;
  /**
   * Several inputs, for a machine whose reachable graph depends on its input (a mode chosen at
   * start): the paths generated from all of them together must take every transition.
   * Replaces `input` when given.
   */
  readonly inputs?: readonly unknown[];
  /** What of the context decides which events are taken (see `PathOptions.contextKey`). */
  readonly contextKey?: (context: any) => unknown;
}

/** The inputs to generate paths from: `inputs`, or the single `input`. */
export const modelInputs = (model: LifecycleModel): readonly unknown[] => model.inputs ?? [model.input];
