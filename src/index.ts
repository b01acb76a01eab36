/** statewright: a durable statechart runtime for agent and CI lifecycles. */
export * from './graph/index.js';
