import type { Command } from '../command.js';
import { demoCommand } from './demo.js';
import { historyCommand } from './history.js';
import { loopCommand } from './loop.js';
import { machinesCommand } from './machines.js';
import { sendCommand } from './send.js';
import { startCommand } from './start.js';
import { statusCommand } from './status.js';
import { taskCommand } from './task.js';
import { verifyCommand } from './verify.js';
import { vizCommand } from './viz.js';

export const commands: Record<string, Command> = {
  demo: demoCommand,
  start: startCommand,
  send: sendCommand,
  status: statusCommand,
  history: historyCommand,
  loop: loopCommand,
  verify: verifyCommand,
  machines: machinesCommand,
  viz: vizCommand,
  task: taskCommand,
};
