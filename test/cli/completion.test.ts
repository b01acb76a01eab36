/**
 * `statewright completion bash|zsh|fish`: a script made from the program's own command tree. The
 * bash script is loaded into a real bash and its function run as bash runs it on Tab; zsh and fish
 * are checked for real where they are installed, and for naming every command everywhere.
 */
import { spawnSync } from 'node:child_process';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_REGISTRY } from '../../src/config/registry.js';
import { createProgram } from '../../src/cli/program.js';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
const cli = (...args: string[]) =>
  startCommand(process.execPath, [bin, ...args], { cwd: testDir('cli-completion'), reject: false });

const program = await createProgram({
  io: { stdin: Readable.from([]), writeOut: () => {}, writeErr: () => {} },
  exitsWith:
    (run) =>
    async (...args) =>
      void (await run(...args)),
  registry: async () => BUILT_IN_REGISTRY,
  configFile: () => undefined,
});
const topLevel = program.commands.map((command) => command.name());

const installed = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

/**
 * What bash offers on Tab after `line` (the word at the cursor is the last one; '' for a new word):
 * the script loaded into a real bash, its function run with COMP_WORDS and COMP_CWORD set as bash sets them.
 */
function bashCompletes(script: string, line: string[]): string[] {
  const words = line.map((word) => `'${word}'`).join(' ');
  const run = spawnSync(
    'bash',
    [
      '-c',
      `eval "$SCRIPT"
spec=$(complete -p statewright) || exit 9
fn=\${spec#*-F }; fn=\${fn%% *}
COMP_WORDS=(${words}); COMP_CWORD=${line.length - 1}
COMP_LINE="\${COMP_WORDS[*]}"; COMP_POINT=\${#COMP_LINE}
"$fn" statewright "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { env: { ...process.env, SCRIPT: script }, encoding: 'utf8' },
  );
  expect([run.status, run.stderr]).toEqual([0, '']);
  return run.stdout.split('\n').filter(Boolean);
}

describe('statewright completion', () => {
  it('bash: registers a completion for statewright that offers commands, subcommands, options and their choices', async () => {
    const generated = await cli('completion', 'bash');
    expect([generated.exitCode, generated.stderr]).toEqual([0, '']);
    const script = generated.stdout;
    const registered = spawnSync('bash', ['-c', 'eval "$SCRIPT"; complete -p statewright'], {
      env: { ...process.env, SCRIPT: script },
      encoding: 'utf8',
    });
    expect(registered.stdout).toMatch(/^complete .*-F \S+ statewright$/m);

    expect(bashCompletes(script, ['statewright', 'sta'])).toEqual(['start', 'status']);
    expect(bashCompletes(script, ['statewright', ''])).toEqual(topLevel);
    expect(bashCompletes(script, ['statewright', 'task', 'c'])).toEqual([
      'create',
      'check',
      'consult',
      'claim',
      'credential',
    ]);
    // Options of the command reached, past options and their values.
    expect(bashCompletes(script, ['statewright', '--config', 'x.ts', 'task', 'status', '--j'])).toEqual(['--json']);
    expect(bashCompletes(script, ['statewright', 'send', '--event-'])).toEqual(['--event-file']);
    expect(bashCompletes(script, ['statewright', 'status', '--store', 'sta', '--st'])).toEqual([
      '--status',
      '--state',
      '--store',
    ]);
    // The choices of an option and of an argument.
    expect(bashCompletes(script, ['statewright', 'status', '--status', ''])).toEqual([
      'active',
      'done',
      'error',
      'stopped',
    ]);
    expect(bashCompletes(script, ['statewright', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    expect(bashCompletes(script, ['statewright', 'help', 'ta'])).toEqual(['task']);
    // An option's value or an argument without choices: nothing, so bash completes file names.
    expect(bashCompletes(script, ['statewright', 'send', '--event-file', ''])).toEqual([]);
    expect(bashCompletes(script, ['statewright', 'history', ''])).toEqual([]);
  });

  it('is made from the command tree: every command, subcommand and option of the program is in each script', async () => {
    const options = (command: (typeof program.commands)[number]) =>
      command.options.map((option) => option.long).filter((long) => long !== undefined);
    for (const shell of ['bash', 'zsh', 'fish']) {
      const { exitCode, stdout } = await cli('completion', shell);
      expect(exitCode).toBe(0);
      for (const command of program.commands) {
        expect(stdout, `${shell}: ${command.name()}`).toMatch(new RegExp(`\\b${command.name()}\\b`));
        for (const long of options(command))
          expect(stdout, `${shell}: ${command.name()} ${long}`).toContain(
            shell === 'fish' ? `-l '${long.slice(2)}'` : long,
          );
        for (const sub of command.commands)
          expect(stdout, `${shell}: ${command.name()} ${sub.name()}`).toContain(`${command.name()} ${sub.name()}`);
      }
    }
  });

  it.skipIf(!installed('fish'))('fish: completes commands, subcommands and choices', async () => {
    const script = (await cli('completion', 'fish')).stdout;
    const completes = (line: string) => {
      const run = spawnSync('fish', ['-c', 'eval $SCRIPT; complete -C $LINE'], {
        env: { ...process.env, SCRIPT: script, LINE: line },
        encoding: 'utf8',
      });
      expect([run.status, run.stderr]).toEqual([0, '']);
      return run.stdout
        .split('\n')
        .filter(Boolean)
        .map((row) => row.split('\t')[0]);
    };
    expect(completes('statewright sta')).toEqual(['start', 'status']);
    expect(completes('statewright task c').sort()).toEqual(['check', 'claim', 'consult', 'create', 'credential']);
    expect(completes('statewright status --status ')).toEqual(['active', 'done', 'error', 'stopped']);
    expect(completes('statewright completion ').sort()).toEqual(['bash', 'fish', 'zsh']);
  });

  it.skipIf(!installed('zsh'))(
    'zsh: the script parses, and registers _statewright for statewright under compinit',
    async () => {
      const script = (await cli('completion', 'zsh')).stdout;
      expect(script).toMatch(/^#compdef statewright\n/);
      const run = spawnSync(
        'zsh',
        ['-fc', 'autoload -U compinit && compinit -u -D && eval "$SCRIPT" && print -r -- $_comps[statewright]'],
        { env: { ...process.env, SCRIPT: script }, encoding: 'utf8' },
      );
      expect([run.status, run.stderr, run.stdout]).toEqual([0, '', '_statewright\n']);
    },
  );

  it('refuses a shell it has no script for with exit 2, naming the three', async () => {
    const unknown = await cli('completion', 'pwsh');
    expect([unknown.exitCode, unknown.stdout, unknown.stderr]).toEqual([
      2,
      '',
      "statewright: No completion for the shell 'pwsh': statewright completion writes a script for bash, zsh or fish: give one of them, e.g. statewright completion bash.",
    ]);
    const none = await cli('completion');
    expect([none.exitCode, none.stderr]).toEqual([2, expect.stringMatching(/missing required argument 'shell'/)]);
  });
});
