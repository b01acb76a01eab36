import { Command, Help } from 'commander';
import type { Cli, CliIo } from './command.js';
import { builtCommandList, type ListedCommand } from './command-list.js';
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
const HELP_FLAGS = new Set(['-h', '--help']);

/**
 * The `statewright` program for the command line `argv`: every command, and `help`. A line that
 * names a command (`status ...`) loads only that command: nothing else could parse it. `--version`
 * loads none; the program's own help (`help`, `--help`, nothing at all) lists the commands from
 * `listing` (the build's, src/cli/command-list.ts) without loading them, and `help status` loads
 * status alone. Without `argv`, or without a listing (run from source), every command is loaded.
 */
export async function createProgram(
  cli: Cli,
  argv?: readonly string[],
  listing: readonly ListedCommand[] | undefined = builtCommandList(),
): Promise<Command> {
  const program = new Command('statewright')
    .description('A durable statechart workflow runtime for agent and CI lifecycles.')
    .version(packageVersion(), '-V, --version', 'print the version of statewright');
  const [first, second] = argv ?? [];
  const named = (name: string | undefined) => commands.filter((command) => command.name === name);
  const programHelp = argv !== undefined && (argv.length === 0 || HELP_FLAGS.has(first!) || first === 'help');
  // `completion` reads them all (its script is made from the whole tree).
  const loaded =
    argv === undefined
      ? commands
      : VERSION_FLAGS.has(first!)
        ? []
        : listing && programHelp
          ? named(first === 'help' ? second : undefined)
          : named(first).length && !named(first).some((command) => command.wholeProgram)
            ? named(first)
            : commands;
  const definitions = new Map(
    await Promise.all(loaded.map(async (command) => [command.name, await command.load()] as const)),
  );
  const listed = new Map(listing?.map((command) => [command.name, command]));
  for (const { name } of commands) {
    const definition = definitions.get(name);
    if (definition) program.addCommand(definition(cli));
    // Listed, not loaded: help shows its line, and nothing else can reach it in this program.
    else if (programHelp && listed.has(name)) program.addCommand(new Command(name).summary(listed.get(name)!.summary));
  }
  if (listing && definitions.size < commands.length)
    program.configureHelp({
      subcommandTerm: (command) =>
        definitions.has(command.name()) || !listed.has(command.name())
          ? new Help().subcommandTerm(command)
          : listed.get(command.name())!.term,
    });
  program.addCommand(helpCommand(program)); // in place of commander's, which reaches one name deep
  configure(program, cli.io);
  return program;
}
