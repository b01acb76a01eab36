/** statewright: a durable statechart runtime for agent and CI lifecycles. */
export * from './graph/index.js';
export * from './runtime/index.js';
export * from './stores/index.js';
export { ReviewLoops, LoopNotFoundError, LoopBusyError, DEFAULT_LOOPS_DIR, type LoopOutcome, type LoopRun, type ReviewLoopsOptions } from './review-loop/review-loops.js';
export { resolveLoopSettings, LoopConfigError, type LoopSettings, type LoopSettingsInput } from './review-loop/settings.js';
export { readTranscript, type TranscriptEntry } from './review-loop/transcript.js';
export { TaskSession, NoTaskError, taskPaths, TASK_RUN_ID } from './task/session.js';
