/** What can be wrong with a config file. Each message names the file and says what to do. */
import { StatewrightError } from '../errors.js';

/** `--config` or `STATEWRIGHT_CONFIG` names a file that is not there. */
export class ConfigNotFoundError extends StatewrightError {
  readonly kind = 'usage';
  override readonly name = 'ConfigNotFoundError';
  constructor(
    readonly file: string,
    from: string,
  ) {
    super(
      `No config file at ${file} (${from}). Check the path, or run \`statewright init\` to write a starter statewright.config.ts.`,
    );
  }
}

/** The file could not be compiled or run. */
export class ConfigLoadError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'ConfigLoadError';
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`Cannot load the config ${file}: ${problem}`);
  }
}

/** The file ran, but what it exports is not a config statewright can host. */
export class InvalidConfigError extends StatewrightError {
  readonly kind = 'invalid';
  override readonly name = 'InvalidConfigError';
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(
      `The config ${file} is not valid: ${problems.join('; ')}. It must \`export default defineConfig({ machines: [defineLifecycle({ name, machine })] })\` (import both from 'statewright').`,
    );
  }
}

/**
 * A config in the working folder that a command does not run without being told to: `statewright
 * mcp` (an agent starts it, in a folder the agent works in) runs none it finds; any command refuses
 * one another user owns or anyone may write, as git refuses a repository another user owns.
 */
export class ConfigNotChosenError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'ConfigNotChosenError';
  constructor(
    readonly file: string,
    why: string,
  ) {
    super(
      `Not running the config ${file}: ${why}. A config file is code and runs with your permissions. ` +
        `If you trust it, name it: --config ${file} (or STATEWRIGHT_CONFIG=${file}); see docs/config.md, "Config files are code".`,
    );
  }
}
