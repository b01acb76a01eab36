/**
 * `statewright send` with events a shell argument cannot carry, and the exit codes of help and
 * usage mistakes, as a user meets them: the built bin (npm run build first), a real process each.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
const cliIn = (cwd: string, args: string[], input?: string) =>
  startCommand(process.execPath, [bin, ...args], { cwd, reject: false, input });

/** An event bigger than the 128 KB (MAX_ARG_STRLEN) one argument of a new process may hold on Linux. */
const note = 'x'.repeat(200 * 1024);
const bigEvent = JSON.stringify({ type: 'ENQUEUE', note });

describe('send with a big event', () => {
  it('cannot take it as an argument, takes it from --event-file and from stdin, and refuses bad JSON on stdin', async () => {
    const dir = testDir('send-event');
    const cli = (args: string[], input?: string) => cliIn(dir, args, input);
    expect((await cli(['start', 'execution', '--id', 'big-1'])).stdout).toBe('big-1: pending');
    // Why --event-file exists: the operating system refuses to start a process with such an argument.
    await expect(startCommand(process.execPath, [bin, 'send', 'big-1', bigEvent], { cwd: dir })).rejects.toThrow(
      /E2BIG/,
    );

    const file = join(dir, 'event.json');
    writeFileSync(file, bigEvent);
    const fromFile = await cli(['send', 'big-1', '--event-file', file, '--actor', 'me']);
    expect([fromFile.exitCode, fromFile.stdout, fromFile.stderr]).toEqual([0, 'big-1: queued (active, 1 events)', '']);

    const fromStdin = await cli(['send', 'big-1', '-'], JSON.stringify({ type: 'START', note }));
    expect([fromStdin.exitCode, fromStdin.stdout]).toEqual([0, 'big-1: running (active, 2 events)']);

    // Bad JSON on stdin: exit 2 with the reason, and nothing sent.
    const bad = await cli(['send', 'big-1', '--event-file', '-'], 'SUCCEED');
    expect([bad.exitCode, bad.stdout, bad.stderr]).toEqual([
      2,
      '',
      expect.stringMatching(/^statewright: The event read from stdin is not valid JSON/),
    ]);

    const history = (await cli(['history', 'big-1', '--json'])).stdout.split('\n').map((line) => JSON.parse(line));
    expect(history.map((entry) => [entry.event.type, entry.event.note.length, entry.actor])).toEqual([
      ['ENQUEUE', note.length, 'me'],
      ['START', note.length, undefined],
    ]);
  });
});

describe('exit codes of the real process', () => {
  it('exits 0 after --help and help, 2 after a usage mistake', async () => {
    const dir = testDir('send-event');
    const cli = (args: string[], input?: string) => cliIn(dir, args, input);
    const help = await cli(['task', 'create', '--help']);
    expect([help.exitCode, help.stdout]).toEqual([
      0,
      expect.stringMatching(/^Usage: statewright task create \[options\] <task>/),
    ]);
    expect((await cli(['help', 'loop'])).exitCode).toBe(0);
    const unknown = await cli(['status', '--machnie', 'execution']);
    expect([unknown.exitCode, unknown.stderr]).toEqual([
      2,
      expect.stringMatching(/^statewright: unknown option '--machnie'\n\(Did you mean --machine\?\)/),
    ]);
  });
});
