import type { Command } from 'commander';
import type { Cli } from '../command.js';

/** A command of the program by its name, and how to load its definition. */
export interface CommandModule {
  /** The name it is called by: the same as its `Command`'s (a test checks it). */
  readonly name: string;
  readonly load: () => Promise<(cli: Cli) => Command>;
  /** Loaded with every other command even when its name is the one on the command line: it reads the whole program. */
  readonly wholeProgram?: true;
}

/**
 * Every command of the program, in the order `statewright help` lists them. Each is loaded when
 * needed: `statewright status` loads only status and what it imports, not the server, the review
 * loop or Postgres (a CLI call starts in a fraction of the time); help loads them all.
 */
export const commands: readonly CommandModule[] = [
  { name: 'init', load: async () => (await import('./init.js')).initCommand },
  { name: 'demo', load: async () => (await import('./demo.js')).demoCommand },
  { name: 'start', load: async () => (await import('./start.js')).startCommand },
  { name: 'send', load: async () => (await import('./send.js')).sendCommand },
  { name: 'status', load: async () => (await import('./status.js')).statusCommand },
  { name: 'history', load: async () => (await import('./history.js')).historyCommand },
  { name: 'loop', load: async () => (await import('./loop.js')).loopCommand },
  { name: 'verify', load: async () => (await import('./verify.js')).verifyCommand },
  { name: 'machines', load: async () => (await import('./machines.js')).machinesCommand },
  { name: 'viz', load: async () => (await import('./viz.js')).vizCommand },
  { name: 'task', load: async () => (await import('./task.js')).taskCommand },
  { name: 'repair', load: async () => (await import('./repair.js')).repairCommand },
  { name: 'serve', load: async () => (await import('./serve.js')).serveCommand },
  { name: 'open', load: async () => (await import('./open.js')).openCommand },
  { name: 'end', load: async () => (await import('./end.js')).endCommand },
  { name: 'explain', load: async () => (await import('./explain.js')).explainCommand },
  { name: 'check', load: async () => (await import('./check.js')).checkCommand },
  { name: 'test', load: async () => (await import('./test.js')).testCommand },
  { name: 'mcp', load: async () => (await import('./mcp.js')).mcpCommand },
  { name: 'worker', load: async () => (await import('./worker.js')).workerCommand },
  { name: 'completion', load: async () => (await import('./completion.js')).completionCommand, wholeProgram: true },
];
