/**
 * The shell completion scripts of `statewright completion`, made from the program's own command
 * tree: every command and subcommand, every option (and whether it takes a value, and its choices),
 * the choices of positional arguments. Nothing is written per command, so a new command or option
 * is completed as soon as it is defined.
 *
 * Each script holds the tree as data (a path of words, `statewright task create`, to its
 * subcommands, options and choices) and one function that walks the words typed so far: a word
 * that names a subcommand of the path reached extends it; an option that takes a value skips the
 * word after it; any other word is a positional argument.
 */
import type { Command } from 'commander';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** A command as the scripts see it. */
interface CompletionNode {
  /** The words that call it, from the program's name: `statewright task create`. */
  readonly path: string;
  readonly commands: ReadonlyArray<{ readonly name: string; readonly summary: string }>;
  readonly options: ReadonlyArray<{
    readonly short?: string;
    readonly long?: string;
    readonly description: string;
    readonly takesValue: boolean;
    readonly choices?: readonly string[];
  }>;
  /** The choices of each positional argument, by position (undefined: any value). */
  readonly argumentChoices: ReadonlyArray<readonly string[] | undefined>;
}

/** Every command of the tree under `root` (itself first), as the scripts see it. */
export function completionTree(root: Command): CompletionNode[] {
  const rootCommands = root.createHelp().visibleCommands(root);
  const walk = (command: Command, path: string): CompletionNode[] => {
    const help = command.createHelp();
    const commands = help.visibleCommands(command);
    const node: CompletionNode = {
      path,
      commands: commands.flatMap((sub) =>
        [sub.name(), ...sub.aliases()].map((name) => ({
          name,
          summary: firstLine(sub.summary() || sub.description()),
        })),
      ),
      options: help.visibleOptions(command).map((option) => ({
        ...(option.short && { short: option.short }),
        ...(option.long && { long: option.long }),
        description: firstLine(option.description),
        takesValue: option.required || option.optional,
        ...(option.argChoices && { choices: option.argChoices }),
      })),
      // `statewright help <command>` takes the name of a command of the program.
      argumentChoices:
        command.parent === root && command.name() === 'help'
          ? [rootCommands.map((sub) => sub.name())]
          : command.registeredArguments.map((argument) => argument.argChoices),
    };
    return [node, ...commands.flatMap((sub) => walk(sub, `${path} ${sub.name()}`))];
  };
  return walk(root, root.name());
}

/** The completion script for `shell` of the program `root`. */
export function completionScript(shell: Shell, root: Command): string {
  const tree = completionTree(root);
  const name = root.name();
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  if (shell === 'bash') return bashScript(name, fn, tree);
  if (shell === 'zsh') return zshScript(name, fn, tree);
  return fishScript(name, fn, tree);
}

const firstLine = (text: string) => text.split('\n')[0]!.trim();

/** A word quoted for bash and zsh: nothing in it is expanded. */
const sh = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** A word quoted for fish. */
const fish = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

const optionWords = (node: CompletionNode) =>
  node.options.flatMap((option) => [option.short, option.long].filter((flag) => flag !== undefined));

/** The `path option` pairs whose option takes a value, for a case pattern. */
const valueOptions = (tree: CompletionNode[]) =>
  tree.flatMap((node) =>
    node.options
      .filter((option) => option.takesValue)
      .flatMap((option) => [option.short, option.long].filter((flag) => flag !== undefined))
      .map((flag) => `${node.path} ${flag}`),
  );

/** `case` arms of a bash or zsh function, one per key with a non-empty value. */
const caseArms = (arms: Array<[string, string | undefined]>, indent: string) =>
  arms
    .filter(([, body]) => body !== undefined)
    .map(([key, body]) => `${indent}${sh(key)}) ${body} ;;`)
    .join('\n');

/** For every option with choices: [`path option`, the choices], for both its flags. */
const optionChoices = (tree: CompletionNode[]) =>
  tree.flatMap((node) =>
    node.options.flatMap((option) =>
      option.choices
        ? [option.short, option.long]
            .filter((flag) => flag !== undefined)
            .map((flag) => [`${node.path} ${flag}`, option.choices!] as const)
        : [],
    ),
  );

/** For every positional argument with choices: [`path position`, the choices]. */
const argumentChoices = (tree: CompletionNode[]) =>
  tree.flatMap((node) =>
    node.argumentChoices.flatMap((choices, position) =>
      choices ? [[`${node.path} ${position}`, choices] as const] : [],
    ),
  );

/** The walk over the typed words (the array `words`), shared by bash and zsh (their syntax is the same here). */
const shellWalk = (
  name: string,
  fn: string,
  words: string,
  first: number,
  current: string,
) => `  local at=${sh(name)} word skip=0 npos=0 i
  for ((i = ${first}; i < ${current}; i++)); do
    word=\${${words}[i]}
    if ((skip)); then
      skip=0
    elif [[ $word == -* ]]; then
      # --option=value carries its value; --option value takes the next word.
      if [[ $word != *=* ]] && ${fn}_takes_value "$at $word"; then skip=1; fi
    elif [[ " $(${fn}_commands "$at") " == *" $word "* ]]; then
      at="$at $word"
      npos=0
    else
      npos=$((npos + 1))
    fi
  done`;

/** The sh function bash and zsh share: whether "command option" takes a value (the next word). */
const takesValue = (fn: string, tree: CompletionNode[]) => `# Whether "command option" takes a value (the next word).
${fn}_takes_value() {
  case $1 in
${caseArms(
  valueOptions(tree).map((key) => [key, 'return 0']),
  '    ',
)}
  esac
  return 1
}`;

function bashScript(name: string, fn: string, tree: CompletionNode[]): string {
  return `# bash completion for ${name}, made by \`${name} completion bash\` from its commands and options.
# Load it in this shell:    source <(${name} completion bash)
# or in every new one:      ${name} completion bash > ~/.local/share/bash-completion/completions/${name}

# The subcommands of a command, by the words that call it.
${fn}_commands() {
  case $1 in
${caseArms(
  tree.map((node) => [
    node.path,
    node.commands.length ? `echo ${sh(node.commands.map((c) => c.name).join(' '))}` : undefined,
  ]),
  '    ',
)}
  esac
}

${fn}_options() {
  case $1 in
${caseArms(
  tree.map((node) => [node.path, `echo ${sh(optionWords(node).join(' '))}`]),
  '    ',
)}
  esac
}

${takesValue(fn, tree)}

# The values an option takes, when it names them.
${fn}_option_choices() {
  case $1 in
${caseArms(
  optionChoices(tree).map(([key, choices]) => [key, `echo ${sh(choices.join(' '))}`]),
  '    ',
)}
  esac
}

# The values a positional argument takes ("command position"), when it names them.
${fn}_argument_choices() {
  case $1 in
${caseArms(
  argumentChoices(tree).map(([key, choices]) => [key, `echo ${sh(choices.join(' '))}`]),
  '    ',
)}
  esac
}

${fn}() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]}
${shellWalk(name, fn, 'COMP_WORDS', 1, 'COMP_CWORD')}
  COMPREPLY=()
  # Nothing offered: bash completes file names (-o default).
  if ((skip)); then
    COMPREPLY=($(compgen -W "$(${fn}_option_choices "$at $prev")" -- "$cur"))
  elif [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(${fn}_options "$at")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(${fn}_commands "$at") $(${fn}_argument_choices "$at $npos")" -- "$cur"))
  fi
}

complete -o default -F ${fn} ${name}
`;
}

/** A `name:description` item for zsh's _describe (a colon in the name is escaped). */
const describeItem = (word: string, description: string) =>
  sh(`${word.replaceAll(':', '\\:')}:${description.replace(/\s+/g, ' ')}`);

function zshScript(name: string, fn: string, tree: CompletionNode[]): string {
  return `#compdef ${name}
# zsh completion for ${name}, made by \`${name} completion zsh\` from its commands and options.
# Load it in this shell:    source <(${name} completion zsh)     (after compinit)
# or in every new one:      ${name} completion zsh > "\${fpath[1]}/_${name}"

# The subcommands of a command, by the words that call it: reply=(name:summary ...).
${fn}_described_commands() {
  reply=()
  case $1 in
${caseArms(
  tree.map((node) => [
    node.path,
    node.commands.length ? `reply=(${node.commands.map((c) => describeItem(c.name, c.summary)).join(' ')})` : undefined,
  ]),
  '    ',
)}
  esac
}

${fn}_commands() {
  local -a reply
  ${fn}_described_commands "$1"
  echo \${reply%%:*}
}

# Its options: reply=(option:description ...).
${fn}_options() {
  reply=()
  case $1 in
${caseArms(
  tree.map((node) => [
    node.path,
    `reply=(${node.options
      .flatMap((option) =>
        [option.short, option.long]
          .filter((flag) => flag !== undefined)
          .map((flag) => describeItem(flag, option.description)),
      )
      .join(' ')})`,
  ]),
  '    ',
)}
  esac
}

${takesValue(fn, tree)}

# The values an option takes, when it names them: reply=(value ...).
${fn}_option_choices() {
  reply=()
  case $1 in
${caseArms(
  optionChoices(tree).map(([key, choices]) => [key, `reply=(${choices.map(sh).join(' ')})`]),
  '    ',
)}
  esac
}

# The values a positional argument takes ("command position"), when it names them.
${fn}_argument_choices() {
  reply=()
  case $1 in
${caseArms(
  argumentChoices(tree).map(([key, choices]) => [key, `reply=(${choices.map(sh).join(' ')})`]),
  '    ',
)}
  esac
}

${fn}() {
  local cur=\${words[CURRENT]} prev=\${words[CURRENT-1]}
  local -a reply items
${shellWalk(name, fn, 'words', 2, 'CURRENT')}
  if ((skip)); then
    ${fn}_option_choices "$at $prev"
    if ((\${#reply})); then compadd -a reply; else _files; fi
  elif [[ $cur == -* ]]; then
    ${fn}_options "$at"
    items=("\${reply[@]}")
    _describe -t options option items
  else
    ${fn}_described_commands "$at"
    items=("\${reply[@]}")
    if ((\${#items})); then
      _describe -t commands command items
    else
      ${fn}_argument_choices "$at $npos"
      if ((\${#reply})); then compadd -a reply; else _files; fi
    fi
  fi
}

if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${name}
fi
`;
}

function fishScript(name: string, fn: string, tree: CompletionNode[]): string {
  const at = (path: string) => `-n ${fish(`${fn}_at ${fish(path)}`)}`;
  const lines: string[] = [];
  for (const node of tree) {
    for (const command of node.commands)
      lines.push(`complete -c ${name} ${at(node.path)} -f -a ${fish(command.name)} -d ${fish(command.summary)}`);
    for (const option of node.options) {
      const flags = [
        option.short && `-s ${fish(option.short.slice(1))}`,
        option.long && `-l ${fish(option.long.slice(2))}`,
      ]
        .filter(Boolean)
        .join(' ');
      const value = option.choices ? ` -x -a ${fish(option.choices.join(' '))}` : option.takesValue ? ' -r' : '';
      lines.push(`complete -c ${name} ${at(node.path)} ${flags}${value} -d ${fish(option.description)}`);
    }
    const choices = new Set(node.argumentChoices.flatMap((c) => c ?? []));
    if (choices.size) lines.push(`complete -c ${name} ${at(node.path)} -f -a ${fish([...choices].join(' '))}`);
  }
  return `# fish completion for ${name}, made by \`${name} completion fish\` from its commands and options.
# Load it in this shell:    ${name} completion fish | source
# or in every new one:      ${name} completion fish > ~/.config/fish/completions/${name}.fish

# The subcommands of a command, by the words that call it.
function ${fn}_commands
    switch $argv[1]
${tree
  .filter((node) => node.commands.length)
  .map(
    (node) =>
      `        case ${fish(node.path)}\n            printf '%s\\n' ${node.commands.map((c) => fish(c.name)).join(' ')}`,
  )
  .join('\n')}
    end
end

# Whether "command option" takes a value (the next word).
function ${fn}_takes_value
    contains -- $argv[1] ${valueOptions(tree).map(fish).join(' ')}
end

# The command the words typed so far call: ${name}, ${name} task, ...
function ${fn}_path
    set -l words (commandline -opc)
    set -e words[1]
    set -l at ${fish(name)}
    set -l skip 0
    for word in $words
        if test $skip = 1
            set skip 0
        else if string match -q -- '-*' $word
            # --option=value carries its value; --option value takes the next word.
            if not string match -q -- '*=*' $word; and ${fn}_takes_value "$at $word"
                set skip 1
            end
        else if contains -- $word (${fn}_commands $at)
            set at "$at $word"
        end
    end
    echo $at
end

function ${fn}_at
    test (${fn}_path) = $argv[1]
end

${lines.join('\n')}
`;
}
