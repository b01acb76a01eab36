#!/usr/bin/env node
/** The `statewright` command. Each subcommand lives in ./commands, one file each. */
import { commands } from './commands/index.js';
import { UsageError } from './usage-error.js';

const usage = `Usage: statewright <command> [options]

Commands:
${Object.entries(commands)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join('\n')}
`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage);
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) throw new UsageError(`Unknown command '${name}'. Run 'statewright help' to see the commands.`);
  return command.run(rest);
}

// `statewright status | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`statewright: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  },
);
