/**
 * The command line's parser in-process: `runCli` with the program's own definition, output
 * captured, no child process. What needs a real process (stdin, big events) is in send-event.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { CommanderError, type Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import type { Cli, CliIo } from '../../src/cli/command.js';
import { listCommands } from '../../src/cli/command-list.js';
import { commands } from '../../src/cli/commands/index.js';
import { createProgram } from '../../src/cli/program.js';
import { runCli } from '../../src/cli/run-cli.js';
import { withRuntime } from '../../src/cli/with-runtime.js';
import { BUILT_IN_REGISTRY } from '../../src/config/registry.js';
import { lifecycles } from '../../machines/index.js';

/** Runs `statewright ...args` in this process, with `stdin` as its standard input. */
async function cli(args: string[], stdin = '') {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdin: Readable.from([stdin]),
    writeOut: (text) => void (out += text),
    writeErr: (text) => void (err += text),
  };
  const code = await runCli(args, io);
  return { code, out, err };
}

/** Every command and subcommand of the program, as the words that call it. */
function commandsOf(command: Command, path: string[] = []): Array<{ path: string[]; command: Command }> {
  return command.commands.flatMap((sub) => [
    { path: [...path, sub.name()], command: sub },
    ...commandsOf(sub, [...path, sub.name()]),
  ]);
}

const quietCli: Cli = {
  io: { stdin: Readable.from([]), writeOut: () => {}, writeErr: () => {} },
  exitsWith:
    (run) =>
    async (...args) =>
      void (await run(...args)),
  registry: async () => BUILT_IN_REGISTRY,
  configFile: () => undefined,
};
const program = await createProgram(quietCli);
const all = commandsOf(program);
/** Help wraps lines to the terminal's width: compare words, not line breaks. */
const words = (text: string) => text.replace(/\s+/g, ' ');

describe('help', () => {
  it('has the commands and subcommands a user reaches for', () => {
    // A floor, so that the derived checks below cannot pass on an empty program.
    expect(all.map(({ path }) => path.join(' '))).toEqual(
      expect.arrayContaining(['send', 'status', 'loop', 'help', 'task', 'task create', 'task status']),
    );
  });

  it.each(all.map(({ path, command }) => [path.join(' '), path, command] as const))(
    '%s --help exits 0 and names its options, arguments and subcommands',
    async (_, path, command) => {
      const help = await cli([...path, '--help']);
      expect([help.code, help.err]).toEqual([0, '']);
      expect(help.out).toMatch(new RegExp(`^Usage: statewright ${path.join(' ')} `));
      for (const option of command.options)
        expect(words(help.out)).toContain(words(`${option.flags}  ${option.description}`).replace(/ +/, ' '));
      for (const argument of command.registeredArguments) expect(help.out).toContain(argument.name());
      for (const sub of command.commands) expect(words(help.out)).toContain(words(sub.summary()));
      // `help <command> [<subcommand>]` says the same.
      expect(await cli(['help', ...path])).toEqual(help);
    },
  );

  it('lists every command with its one-line description, on --help and on help', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const command of program.commands) expect(words(help.out)).toContain(`${command.name()} `);
    for (const command of program.commands) expect(words(help.out)).toContain(words(command.summary()));
    expect(await cli(['help'])).toEqual(help);
    expect(await cli(['-h'])).toEqual(help);
  });

  it('loads each command by the name it is called by, and only that one for a command line that names it', async () => {
    const quiet = {
      io: { stdin: Readable.from([]), writeOut: () => {}, writeErr: () => {} },
      exitsWith: (run: () => Promise<number>) => async () => void (await run()),
    } as unknown as Cli;
    expect(program.commands.map((command) => command.name())).toEqual([
      ...commands.map((command) => command.name),
      'help',
    ]);
    for (const { name, wholeProgram } of commands) {
      const one = await createProgram(quiet, [name]);
      // completion reads the whole tree, so every command is loaded for it.
      expect(one.commands.map((command) => command.name())).toEqual(
        wholeProgram ? program.commands.map((command) => command.name()) : [name, 'help'],
      );
      // The same definition as in the whole program, so its help and parsing are the same.
      expect(one.commands.find((command) => command.name() === name)!.helpInformation()).toBe(
        program.commands.find((command) => command.name() === name)!.helpInformation(),
      );
    }
    // --version loads none.
    expect((await createProgram(quiet, ['--version'])).commands.map((command) => command.name())).toEqual(['help']);
  });

  it("lists the commands from the build's command list as the whole program does, loading none but the one help is asked for", async () => {
    const listing = listCommands(program);
    /** The program for `argv` with the listing, its output, and the commands it loaded (a listed one has only --config and no subcommands). */
    async function withListing(argv: string[]) {
      let out = '';
      const io: CliIo = { stdin: Readable.from([]), writeOut: (text) => void (out += text), writeErr: () => {} };
      const listed = await createProgram({ ...quietCli, io }, argv, listing);
      await listed.parseAsync(argv, { from: 'user' }).catch((error: unknown) => {
        if (!(error instanceof CommanderError)) throw error;
      });
      const loaded = listed.commands
        .filter((command) => command.commands.length || command.options.some((option) => option.long !== '--config'))
        .map((command) => command.name());
      return { out, loaded };
    }
    for (const argv of [['help'], ['--help'], ['-h'], []])
      expect(await withListing(argv)).toEqual({ out: (await cli(argv)).out, loaded: [] });
    expect(await withListing(['help', 'task', 'create'])).toEqual({
      out: (await cli(['help', 'task', 'create'])).out,
      loaded: ['task'],
    });
  });

  it('shows the --store choices on every command that opens a store', async () => {
    const storeCommands = all
      .filter(({ command }) => command.options.some((option) => option.long === '--store'))
      .map(({ path }) => path.join(' '));
    expect(storeCommands).toEqual([
      'demo',
      'start',
      'send',
      'status',
      'history',
      'loop',
      'verify',
      'repair',
      'serve',
      'open',
      'end',
      'explain',
      'check',
      'test',
      'mcp',
    ]);
    for (const name of storeCommands)
      expect(words((await cli([name, '--help'])).out)).toMatch(
        /--store <store> where the runs are kept: sqlite:<file> .* json:<dir>, postgres:<url> .* or memory/,
      );
  });

  it('prints the help on stderr and exits 2 when no command is given', async () => {
    const none = await cli([]);
    expect([none.code, none.out]).toEqual([2, '']);
    expect(none.err).toMatch(/^Usage: statewright \[options\] \[command\]/);
    const noAction = await cli(['task']);
    expect([noAction.code, noAction.err]).toEqual([
      2,
      expect.stringMatching(/^Usage: statewright task \[options\] \[command\]/),
    ]);
  });
});

describe('mistakes on the command line', () => {
  it('suggests the nearest command for an unknown one, and exits 2', async () => {
    expect(await cli(['strat', 'execution'])).toEqual({
      code: 2,
      out: '',
      err: "statewright: unknown command 'strat'\n(Did you mean start?)\n(statewright --help lists its commands)\n",
    });
    expect(await cli(['task', 'chek'])).toEqual({
      code: 2,
      out: '',
      err: "statewright: unknown command 'chek'\n(Did you mean check?)\n(statewright task --help lists its commands)\n",
    });
    expect(await cli(['help', 'task', 'chek'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^statewright: unknown command 'chek'\n\(Did you mean check\?\)/),
    });
    expect(await cli(['help', 'send', 'now'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^statewright: 'send' has no subcommands: statewright help send\n/),
    });
  });

  it('suggests the nearest option for an unknown one, and exits 2', async () => {
    expect(await cli(['status', '--stor', 'memory'])).toEqual({
      code: 2,
      out: '',
      err: "statewright: unknown option '--stor'\n(Did you mean --store?)\n(statewright status --help shows how to call it)\n",
    });
    expect((await cli(['send', 'run-1', '--event-fle', 'e.json'])).err).toMatch(
      /^statewright: unknown option '--event-fle'\n\(Did you mean --event-file\?\)/,
    );
  });

  it('refuses a missing argument, an extra one and a bad option value with exit 2', async () => {
    expect(await cli(['history'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^statewright: missing required argument 'run'/),
    });
    expect(await cli(['task', 'create', 'one', 'two', '--as', 'supervisor:claude:1'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^statewright: too many arguments for 'create'/),
    });
    expect(await cli(['status', '--status', 'sleeping'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/argument 'sleeping' is invalid\. Allowed choices are active, done, error, stopped/),
    });
    expect(await cli(['demo', '--pace', 'soon'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(
        /option '--pace <ms>' argument 'soon' is invalid\. Give a whole number of at least 0\./,
      ),
    });
  });

  it('refuses a host id that is empty, holds whitespace or a control character, or is over 200 characters, and a lease ttl under 500 ms, with exit 2', async () => {
    const hostId = async (value: string) =>
      (await cli(['serve', '--host-id', value, '--store', 'memory'])) as { code: number; err: string };
    expect(await hostId('')).toEqual({
      code: 2,
      out: '',
      err: expect.stringMatching(
        /^statewright: option '--host-id <name>' argument '' is invalid\. Cannot name a host so: it is empty\. Give one word of visible characters, e\.g\. --host-id worker-1\.\n/,
      ),
    });
    expect((await hostId('worker 1')).err).toMatch(
      /argument 'worker 1' is invalid\. Cannot name a host so: it holds " " \(U\+0020\) at position 6: only visible characters, no whitespace\./,
    );
    expect((await hostId('worker\t1')).err).toMatch(/it holds "\\t" \(U\+0009\) at position 6/);
    expect((await hostId('w\u200b1')).err).toMatch(/it holds "\u200b" \(U\+200B\) at position 1/);
    expect((await hostId('w'.repeat(201))).err).toMatch(
      /Cannot name a host so: it is 201 characters long, more than 200\./,
    );
    expect((await hostId('w'.repeat(201))).code).toBe(2);
    const ttl = (value: string) => cli(['serve', '--lease-ttl', value, '--store', 'memory']);
    expect(await ttl('499')).toMatchObject({
      code: 2,
      err: expect.stringMatching(
        /^statewright: option '--lease-ttl <ms>' argument '499' is invalid\. Give a whole number of at least 500\./,
      ),
    });
    expect(await ttl('10s')).toMatchObject({
      code: 2,
      err: expect.stringMatching(/argument '10s' is invalid\. Give a whole number of at least 500\./),
    });
    expect(await cli(['serve', '--hibernate-after', 'never', '--store', 'memory'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(
        /option '--hibernate-after <ms>' argument 'never' is invalid\. Give a whole number of ms \(0: at once\), or off\./,
      ),
    });
  });
});

describe('send: where the event comes from', () => {
  const dir = mkdtempSync(join(tmpdir(), 'statewright-send-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const store = `sqlite:${join(dir, 'state.db')}`;
  const send = (args: string[], stdin?: string) => cli(['send', 'job-1', ...args, '--store', store], stdin);

  it('refuses bad JSON, a missing file, and an event given twice or not at all, with exit 2 and nothing sent', async () => {
    await withRuntime(store, lifecycles, (rt) => rt.start('execution', { id: 'job-1' }));
    const badFile = join(dir, 'bad.json');
    writeFileSync(badFile, '{"type": START}');
    const missing = join(dir, 'missing.json');
    const cases: Array<[string[], string | undefined, RegExp]> = [
      [
        ['{type:START}'],
        undefined,
        /^statewright: The event is not valid JSON \(.*\): \{type:START\}\. Example: '\{"type":"START"\}'\n$/,
      ],
      [
        ['-'],
        'START',
        /^statewright: The event read from stdin is not valid JSON \(.*\)\. It should hold the event, e\.g\. '\{"type":"START"\}'\.\n$/,
      ],
      [
        ['--event-file', '-'],
        '  \n',
        /^statewright: The event read from stdin is empty: it should hold the event as JSON/,
      ],
      [
        ['--event-file', badFile],
        undefined,
        new RegExp(`^statewright: The event in ${badFile} is not valid JSON \\(.*\\)\\. It should hold the event`),
      ],
      [
        ['--event-file', missing],
        undefined,
        new RegExp(
          `^statewright: --event-file ${missing} cannot be read: there is no such file\\. Give a file that holds the event as JSON, or --event-file - to read it from stdin\\.\n$`,
        ),
      ],
      [['--event-file', dir], undefined, /cannot be read: it is a folder\./],
      [
        ['{"type":"ENQUEUE"}', '--event-file', badFile],
        undefined,
        /^statewright: send takes the event as its argument or from --event-file, not both: leave out '\{"type":"ENQUEUE"\}' or --event-file /,
      ],
      [
        [],
        undefined,
        /^statewright: send needs an event: statewright send <run> '\{"type":"START"\}', or --event-file <path>, or - to read it from stdin\.\n$/,
      ],
    ];
    for (const [args, stdin, message] of cases) {
      const result = await send(args, stdin);
      expect([result.code, result.out, result.err], args.join(' ')).toEqual([2, '', expect.stringMatching(message)]);
    }
    expect(await withRuntime(store, lifecycles, (rt) => rt.history('job-1'))).toEqual([]);
  });
});
