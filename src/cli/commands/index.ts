import type { Command } from 'commander';
import type { Cli } from '../command.js';
import { demoCommand } from './demo.js';
import { historyCommand } from './history.js';
import { loopCommand } from './loop.js';
import { machinesCommand } from './machines.js';
import { sendCommand } from './send.js';
import { serveCommand } from './serve.js';
import { startCommand } from './start.js';
import { statusCommand } from './status.js';
import { taskCommand } from './task.js';
import { verifyCommand } from './verify.js';
import { explainCommand } from './explain.js';
import { checkCommand } from './check.js';
import { vizCommand } from './viz.js';

/** Every command of the program, in the order `statewright help` lists them. */
export const commands: ReadonlyArray<(cli: Cli) => Command> = [
  demoCommand,
  startCommand,
  sendCommand,
  statusCommand,
  historyCommand,
  loopCommand,
  verifyCommand,
  machinesCommand,
  vizCommand,
  taskCommand,
  serveCommand,
  explainCommand,
  checkCommand,
];
