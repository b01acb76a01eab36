import { Argument, Command } from 'commander';
import type { Cli } from '../command.js';
import { completionScript, SHELLS, type Shell } from '../completion-scripts.js';
import { invocation } from '../invocation.js';
import { UsageError } from '../usage-error.js';

/**
 * How to load the script, in commands that run where the person is (`run`: how statewright is run
 * here, `npx statewright` in a local install). The script completes the `statewright` command, so
 * where that is not on PATH it says how to put it there.
 */
export function completionHelp(run: string): string {
  return (
    "Print a script that completes statewright's commands, subcommands, options and their choices in your shell, " +
    `made from the commands themselves. Load it in this shell with \`source <(${run} completion bash)\` ` +
    `(zsh: \`source <(${run} completion zsh)\` after compinit; fish: \`${run} completion fish | source\`), ` +
    `or in every new one: bash: \`${run} completion bash > ~/.local/share/bash-completion/completions/statewright\`; ` +
    `zsh: \`${run} completion zsh > "\${fpath[1]}/_statewright"\`; ` +
    `fish: \`${run} completion fish > ~/.config/fish/completions/statewright.fish\`.` +
    (run === 'statewright'
      ? ''
      : ' It completes the `statewright` command, which is not on PATH here: put it there ' +
        '(a local install: `export PATH="$PWD/node_modules/.bin:$PATH"`), or install it with `npm install -g statewright`.')
  );
}

export const completionCommand = (cli: Cli) => {
  const command: Command = new Command('completion')
    .summary('print the shell completion script for bash, zsh or fish')
    .description(completionHelp(invocation()))
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
