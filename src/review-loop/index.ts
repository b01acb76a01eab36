/** The review-loop lifecycle's API (`statewright/review-loop`): the runner on a runtime, its settings and its transcript. */
export {
  reviewLoopLifecycle,
  ReviewLoops,
  LoopNotFoundError,
  LoopBusyError,
  DEFAULT_LOOPS_DIR,
  type LoopOutcome,
  type LoopRun,
  type ReviewLoopsOptions,
} from './review-loops.js';
export { resolveLoopSettings, LoopConfigError, type LoopSettings, type LoopSettingsInput } from './settings.js';
export { readTranscript, type TranscriptEntry } from './transcript.js';
