/**
 * The task machine's `checkRunner` actor: runs the configured check commands as real processes,
 * one after another and all of them (as ferrus does, so the executor sees every failure at once),
 * and reports `check_passed` or `check_failed` through the run's queue. Pass or fail is the exit
 * codes; the executor gets the last `maxFeedbackLines` lines of each failing command's output,
 * and the full output is kept in a log file.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { fromCallback, type EventObject } from 'xstate';
import type { AgentId, CheckRunInput, TaskEvent } from '../../machines/task/index.js';
import type { ActorFactory, RunHandle } from '../actor-contract/run-handle.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../os/private-files.js';

export interface CheckRunnerOptions {
  /** Shell command lines, run with `/bin/sh -c`. An empty list passes, with a warning. */
  readonly commands: readonly string[];
  readonly cwd: string;
  readonly maxFeedbackLines: number;
  /** Where each check's full output goes (`check-<attempt>-<time>.log`); not kept when absent. */
  readonly logDir?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** How long a stopped check gets between SIGTERM and SIGKILL. Default 5000 ms. */
  readonly graceMs?: number;
  /** The identity the results are sent under. Default `checker:statewright:1`. */
  readonly agent?: AgentId;
}

/** How one command ended. `exitCode` is undefined when it was killed or could not start. */
export interface CommandOutcome {
  readonly command: string;
  readonly passed: boolean;
  readonly exitCode: number | undefined;
  readonly signal: string | undefined;
  /** stdout and stderr, interleaved as written. */
  readonly output: string;
}

/**
 * A result may race the task out of Checking (a consult or a question stops the checks as the
 * last command ends): it is then dropped rather than reported as an invalid event.
 */
const delivery = { actor: 'checker', ifAccepted: true } as const;

const DEFAULT_CHECKER: AgentId = 'checker:statewright:1';

/**
 * The actor, from its options or from where to load them when a check starts (a project's
 * ferrus.toml, read once by `taskLifecycle`): a load that fails is reported as a failed check.
 */
export function checkRunner(source: CheckRunnerOptions | (() => Promise<CheckRunnerOptions>)): ActorFactory {
  const load = typeof source === 'function' ? source : () => Promise.resolve(source);
  return (run) =>
    fromCallback<EventObject, CheckRunInput>(({ input }) => {
      let stopped = false;
      let check: CheckRun | undefined;
      let agent: AgentId = typeof source === 'function' ? DEFAULT_CHECKER : (source.agent ?? DEFAULT_CHECKER);
      // Nothing runs before the step that entered Checking is durable; a check stopped before
      // then (its step rolled back, or the run left Checking) never starts.
      run.afterCommit(() => {
        load()
          .then((options) => {
            if (stopped) return;
            agent = options.agent ?? DEFAULT_CHECKER;
            check = new CheckRun(options, run, input.attempt);
            return check.start();
          })
          .catch((error: unknown) => {
            // Not the commands' fault, but a check that never reports would leave the task waiting
            // in Checking for good: report it as a failure the executor can read.
            const message = `The check runner failed: ${(error as Error).message}`;
            run.log('error', message);
            const event: TaskEvent = { type: 'check_failed', agent, failed: ['(check runner)'], feedback: message };
            run.send(event, { ...delivery, reason: 'the check runner failed' });
          });
      });
      return () => {
        stopped = true;
        check?.letGo();
        // Killed once the step that left Checking is durable; if that step is undone, the restored
        // actor runs the check anew, so this one is killed then too.
        run.afterStop(() => check?.stop());
      };
    });
}

class CheckRun {
  #stopped = false;
  #current: ResultPromise | undefined;

  constructor(
    private readonly options: CheckRunnerOptions,
    private readonly handle: RunHandle,
    private readonly attempt: number,
  ) {}

  async start(): Promise<void> {
    const { commands } = this.options;
    const agent = this.options.agent ?? DEFAULT_CHECKER;
    const outcomes: CommandOutcome[] = [];
    for (const command of commands) {
      if (this.#stopped) break;
      outcomes.push(await this.#runOne(command));
    }
    if (this.#stopped) {
      // A stopped check reports nothing: its run has moved on. The log says where it was cut off.
      this.handle.log(
        'info',
        `the check was stopped after ${outcomes.length} of ${commands.length} command(s): nothing reported`,
      );
      return;
    }
    const failed = outcomes.filter((o) => !o.passed);
    if (failed.length === 0) {
      const event: TaskEvent = commands.length
        ? { type: 'check_passed', agent }
        : {
            type: 'check_passed',
            agent,
            warning: 'no check commands are configured ([checks] commands in ferrus.toml)',
          };
      this.handle.send(event, { ...delivery, reason: `${commands.length} check command(s) exited 0` });
      return;
    }
    const logPath = await this.#keepLog(outcomes);
    const event: TaskEvent = {
      type: 'check_failed',
      agent,
      failed: failed.map((o) => o.command),
      feedback: checkFeedback(failed, this.options.maxFeedbackLines, logPath),
    };
    this.handle.send(event, { ...delivery, reason: failed.map((o) => `'${o.command}' ${ending(o)}`).join('; ') });
  }

  async #runOne(command: string): Promise<CommandOutcome> {
    if (command.trim() === '') return { command, passed: true, exitCode: 0, signal: undefined, output: '' };
    // Own process group, so that stopping the check also stops what the command started.
    const subprocess = execa('/bin/sh', ['-c', command], {
      cwd: this.options.cwd,
      ...(this.options.env && { env: this.options.env }),
      stdin: 'ignore',
      all: true,
      reject: false,
      detached: true,
    });
    this.#current = subprocess;
    const result = await subprocess;
    this.#current = undefined;
    // A command that could not start (no such cwd) has no exit code; its error says why.
    const output = result.all ?? '';
    const startFailure = result.exitCode === undefined && !result.signal ? result.shortMessage : undefined;
    return {
      command,
      passed: result.exitCode === 0,
      exitCode: result.exitCode,
      signal: result.signal,
      output: startFailure ? `${output}${output && !output.endsWith('\n') ? '\n' : ''}${startFailure}` : output,
    };
  }

  /** Starts no further command and reports nothing: the task has left Checking (`stop` kills the one running). */
  letGo(): void {
    this.#stopped = true;
  }

  stop(): void {
    this.#stopped = true;
    const pid = this.#current?.pid;
    if (pid === undefined) return;
    killGroup(pid, 'SIGTERM');
    const grace = setTimeout(() => killGroup(pid, 'SIGKILL'), this.options.graceMs ?? 5000);
    grace.unref();
    void this.#current?.finally(() => clearTimeout(grace));
  }

  async #keepLog(outcomes: readonly CommandOutcome[]): Promise<string | undefined> {
    const { logDir } = this.options;
    if (!logDir) return undefined;
    const path = join(logDir, `check-${this.attempt}-${this.handle.clock.now()}.log`);
    try {
      await makePrivateDir(logDir);
      await writeFile(
        path,
        outcomes
          .map((o) => `=== [${o.passed ? 'PASS' : 'FAIL'}] ${o.command} (${ending(o)})\n${withNewline(o.output)}`)
          .join('\n'),
        { mode: PRIVATE_FILE_MODE },
      );
      return path;
    } catch (error) {
      this.handle.log('warn', `the check log could not be written: ${(error as Error).message}`, { path });
      return undefined;
    }
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error; // already gone
  }
}

const ending = (o: CommandOutcome) =>
  o.exitCode !== undefined ? `exit code ${o.exitCode}` : o.signal ? `killed by ${o.signal}` : 'did not start';

const withNewline = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);

/** The last `maxLines` lines of `text` and how many lines it had. */
export function tail(text: string, maxLines: number): { lines: string[]; total: number } {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop(); // the newline ending the last line does not start another
  return { lines: maxLines > 0 ? lines.slice(-maxLines) : [], total: lines.length };
}

/** What the executor reads after a failed check: each failing command with the tail of its output. */
export function checkFeedback(failed: readonly CommandOutcome[], maxLines: number, logPath?: string): string {
  const parts = failed.map((o) => {
    const { lines, total } = tail(o.output, maxLines);
    const shown = total > lines.length ? `; last ${lines.length} of ${total} lines` : '';
    return [`$ ${o.command}  (${ending(o)}${shown})`, ...lines].join('\n');
  });
  if (logPath) parts.push(`Full log: ${logPath}`);
  return parts.join('\n\n');
}
