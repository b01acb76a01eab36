import { Command } from 'commander';

/**
 * `statewright help [command...]`: the help of a command or of a subcommand (`help task create`),
 * which commander's own help command, one name deep, does not reach.
 */
export function helpCommand(program: Command): Command {
  return new Command('help')
    .summary('show the help of a command: help <command> [<subcommand>]')
    .argument('[command...]', 'the command, then its subcommand')
    .action(async (names: string[]) => {
      let target = program;
      for (const [depth, name] of names.entries()) {
        const next = target.commands.find((command) => command.name() === name || command.aliases().includes(name));
        if (next) {
          target = next;
          continue;
        }
        // Parsing the name where it is unknown gives commander's error, with the nearest name it knows.
        if (target.commands.length) await target.parseAsync([name], { from: 'user' });
        target.error(
          `error: '${target.name()}' has no subcommands: statewright help ${names.slice(0, depth).join(' ')}`,
        );
      }
      target.help();
    });
}
