/**
 * statewright: a durable statechart runtime for agent and CI lifecycles. Each lifecycle's service
 * comes from its own subpath (`statewright/session`, `statewright/codon`, `statewright/review-loop`,
 * `statewright/task`), wired the same way onto a runtime made here.
 */
export * from './graph/index.js';
export * from './runtime/index.js';
export * from './stores/index.js';
