import { Argument, Command } from 'commander';
import type { Cli } from '../command.js';
import { completionScript, SHELLS, type Shell } from '../completion-scripts.js';
import { UsageError } from '../usage-error.js';

export const completionCommand = (cli: Cli) => {
  const command: Command = new Command('completion')
    .summary('print the shell completion script for bash, zsh or fish')
    .description(
      "Print a script that completes statewright's commands, subcommands, options and their choices in your shell, " +
        'made from the commands themselves. Load it in this shell with `source <(statewright completion bash)` ' +
        '(zsh: `source <(statewright completion zsh)` after compinit; fish: `statewright completion fish | source`), ' +
        'or in every new one: bash: `statewright completion bash > ~/.local/share/bash-completion/completions/statewright`; ' +
        `zsh: \`statewright completion zsh > "\${fpath[1]}/_statewright"\`; ` +
        'fish: `statewright completion fish > ~/.config/fish/completions/statewright.fish`.',
    )
    // The choices are shown in the help and completed; the action checks them, to say what to do instead.
    .addArgument(new Argument('<shell>', 'the shell the script is for').choices(SHELLS).argParser(String))
    .action(
      cli.exitsWith(async (shell: string) => {
        if (!(SHELLS as readonly string[]).includes(shell))
          throw new UsageError(
            `No completion for the shell '${shell}': statewright completion writes a script for bash, zsh or fish: give one of them, e.g. statewright completion bash.`,
          );
        let root = command;
        while (root.parent) root = root.parent;
        process.stdout.write(completionScript(shell as Shell, root));
        return 0;
      }),
    );
  return command;
};
