#!/usr/bin/env node
/** The `statewright` command: the program is in ./program.ts, each command in ./commands. */
import { runCli } from './run-cli.js';

// `statewright status | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

process.exitCode = await runCli(process.argv.slice(2), {
  // Touched only when read (`send -`): the other commands leave the process's stdin alone.
  get stdin() {
    return process.stdin;
  },
  writeOut: (text) => process.stdout.write(text),
  writeErr: (text) => process.stderr.write(text),
});
