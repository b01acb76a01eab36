import { Command } from 'commander';
import type { Cli, CliIo } from './command.js';
import { commands } from './commands/index.js';
import { helpCommand } from './help-command.js';
import { packageVersion } from './package-version.js';

/** `statewright send`, as a person types it. */
const commandLine = (command: Command): string =>
  command.parent ? `${commandLine(command.parent)} ${command.name()}` : command.name();

/**
 * Commander passes its settings on to subcommands it creates, not to commands built apart and
 * added (as each file in ./commands is): so they are set on every command of the tree here.
 */
function configure(command: Command, io: CliIo): void {
  if (!command.options.some((option) => option.long === '--config'))
    command.option(
      '--config <file>',
      'the config file with your lifecycles (default $STATEWRIGHT_CONFIG, else statewright.config.{ts,mts,js,mjs} in the working folder)',
    );
  command
    .exitOverride()
    .configureOutput({
      writeOut: io.writeOut,
      writeErr: io.writeErr,
      // Every error the command line prints starts the same way, commander's or a command's.
      outputError: (text, write) => write(text.replace(/^error: /, 'statewright: ')),
    })
    .showHelpAfterError(
      `(${commandLine(command)} --help ${command.commands.length ? 'lists its commands' : 'shows how to call it'})`,
    );
  for (const subcommand of command.commands) configure(subcommand, io);
}

const VERSION_FLAGS = new Set(['-V', '--version']);

/**
 * The `statewright` program: every command, and `help`. Given the first word of a command line
 * that names a command (`status`), only that command is loaded: nothing else could parse that line.
 */
export async function createProgram(cli: Cli, commandName?: string): Promise<Command> {
  const program = new Command('statewright')
    .description('A durable statechart workflow runtime for agent and CI lifecycles.')
    .version(packageVersion(), '-V, --version', 'print the version of statewright');
  const named = commands.filter((command) => command.name === commandName);
  // `--version` reads no command; `completion` reads them all (its script is made from the whole tree).
  const loaded = VERSION_FLAGS.has(commandName ?? '')
    ? []
    : named.length && !named.some((command) => command.wholeProgram)
      ? named
      : commands;
  const definitions = await Promise.all(loaded.map((command) => command.load()));
  for (const command of definitions) program.addCommand(command(cli));
  program.addCommand(helpCommand(program)); // in place of commander's, which reaches one name deep
  configure(program, cli.io);
  return program;
}
