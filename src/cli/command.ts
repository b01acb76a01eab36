export interface Command {
  readonly summary: string;
  /** Runs with the arguments after the command name; resolves with the exit code. */
  run(args: string[]): Promise<number>;
}
