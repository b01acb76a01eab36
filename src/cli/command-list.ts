import { readFileSync } from 'node:fs';
import type { Command } from 'commander';

/** One command as `statewright help` lists it: its name, its term (`send [options] <run> [event]`) and its line. */
export interface ListedCommand {
  readonly name: string;
  readonly term: string;
  readonly summary: string;
}

/**
 * Every command of the whole program as `statewright help` lists it. The build writes it beside
 * the bundle (scripts/build-cli.mjs), so that `help` and `--help` list the commands without
 * loading their implementations (a command's own help still loads that command).
 */
export function listCommands(program: Command): ListedCommand[] {
  const help = program.createHelp();
  return program.commands
    .filter((command) => command.name() !== 'help')
    .map((command) => ({
      name: command.name(),
      term: help.subcommandTerm(command),
      summary: help.subcommandDescription(command),
    }));
}

/** The list the build wrote beside this module (the bundle's), or undefined where there is none (run from source). */
export function builtCommandList(): ListedCommand[] | undefined {
  try {
    return JSON.parse(readFileSync(new URL('./command-list.json', import.meta.url), 'utf8')) as ListedCommand[];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
