import type { Command } from '../command.js';
import { demoCommand } from './demo.js';
import { machinesCommand } from './machines.js';
import { vizCommand } from './viz.js';

export const commands: Record<string, Command> = {
  demo: demoCommand,
  machines: machinesCommand,
  viz: vizCommand,
};
