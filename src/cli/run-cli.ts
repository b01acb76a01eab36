import { CommanderError, type Command } from 'commander';
import { findConfig } from '../config/find-config.js';
import type { Registry } from '../config/registry.js';
import type { Cli, CliIo } from './command.js';
import { createProgram } from './program.js';
import { exitCode as exitCodeOf } from '../errors.js';
import { USAGE_EXIT_CODE } from './usage-error.js';

/**
 * Runs the command line `argv` (the arguments after `statewright`) and resolves with its exit
 * code: the command's, 0 after help, else the one its error's kind maps to (src/errors.ts: 2 for
 * a usage mistake, 1 for any other error).
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode = 0;
  let configFlag: string | undefined;
  let discover = true;
  let registry: ((needs?: readonly string[]) => Promise<Registry>) | undefined;
  const cli: Cli = {
    io,
    exitsWith:
      (run) =>
      async (...args) => {
        exitCode = await run(...args);
      },
    // Loaded when a command reads it: every lifecycle's machine is more than `statewright mcp` may
    // load before it answers `initialize`.
    registry: async (needs) => {
      registry ??= (await import('../config/lazy-registry.js')).registryLoader({ flag: configFlag, discover });
      return registry(needs);
    },
    configFile: () => findConfig({ flag: configFlag, discover }),
  };
  try {
    const program = await createProgram(cli, argv);
    program.hook('preAction', async (_program, command) => {
      configFlag = command.optsWithGlobals<{ config?: string }>().config;
      discover = !STARTED_BY_AGENTS.has(command.name());
      // Such a command reads a config for its store only when its command line names one.
      await useConfigStore(command, cli, discover || configFlag !== undefined);
    });
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    // Commander has printed its help or its error already.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
    io.writeErr(`statewright: ${error instanceof Error ? error.message : String(error)}\n`);
    return exitCodeOf(error);
  }
}

/**
 * Commands an agent starts, in a folder it works in (a repository that may be hostile): they run
 * no config found there (`findConfig`'s `discover: false`), only one `--config` names.
 */
const STARTED_BY_AGENTS = new Set(['mcp']);

/** Commands whose `--store` asks for more (check: also hold the registry against a store's runs), not where. */
const STORE_AS_A_MODE = new Set(['check']);

/**
 * A command that opens a store, called without `--store`, opens the one `STATEWRIGHT_STORE` names
 * (empty is unset), else the config's `store` if it names one, else the default store.
 */
async function useConfigStore(command: Command, cli: Cli, readsConfig: boolean): Promise<void> {
  const takesStore =
    !STORE_AS_A_MODE.has(command.name()) && command.options.some((option) => option.attributeName() === 'store');
  if (!takesStore || command.getOptionValue('store') !== undefined) return;
  const fromEnvironment = process.env.STATEWRIGHT_STORE || undefined;
  // The config's store: no built-in lifecycle is needed to read it.
  const store = fromEnvironment ?? (readsConfig ? (await cli.registry([])).store : undefined);
  if (store === undefined) return;
  command.setOptionValueWithSource('store', store, fromEnvironment === undefined ? 'config' : 'env');
  // Named in the environment or the project's config, not typed: made when first needed, as the default store is.
  if (command.options.some((option) => option.attributeName() === 'create')) command.setOptionValue('create', true);
}
