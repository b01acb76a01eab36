import { Command, Option } from 'commander';
import { DEFAULT_MAX_ITERATIONS, lifecycles } from '../../../machines/index.js';
import { REVIEW_MODES, type ReviewMode } from '../../review-loop/consensus.js';
import { isTerminalRunState } from '../../review-loop/run-state.js';
import {
  DEFAULT_LOOPS_DIR,
  reviewLoopLifecycle,
  type LoopOutcome,
  type LoopRun,
} from '../../review-loop/review-loops.js';
import { createRuntime } from '../../runtime/runtime.js';
import { LoopConfigError, type LoopSettingsInput } from '../../review-loop/settings.js';
import { DEFAULT_DONE_SIGNAL } from '../../review-loop/signals.js';
import type { Cli } from '../command.js';
import { loopLine } from '../loop-lines.js';
import { openStore, storeOption } from '../open-store.js';
import { splitCommand } from '../split-command.js';
import { UsageError } from '../usage-error.js';
import { wholeNumber } from '../whole-number.js';

interface LoopOptions {
  readonly primary?: string;
  readonly reviewer?: string;
  readonly primaryResume?: string;
  readonly reviewerResume?: string;
  readonly single?: boolean;
  readonly maxIterations?: number;
  readonly mode?: ReviewMode;
  readonly doneSignal?: string;
  readonly id?: string;
  readonly resume?: string;
  readonly loopsDir?: string;
  readonly graceMs?: number;
  readonly store?: string;
}

/** The help group of the options a loop is started with: `--resume` takes them from the stored loop instead. */
const STARTING = 'Starting a loop:';

const resumeArgs = (option: string, value: string | undefined) => {
  if (value === undefined) return {};
  const args = splitCommand(option, value);
  if (!args.some((arg) => arg.includes('{session}')))
    throw new UsageError(`${option} must say where the session id goes, e.g. ${option}="--resume {session}"`);
  return { resumeArgs: args };
};

function settingsFrom(values: LoopOptions, prompt: string | undefined, help: string): LoopSettingsInput {
  if (!prompt) throw new UsageError(`loop needs the task as its argument:\n${help}`);
  if (values.primary === undefined)
    throw new UsageError('loop needs --primary "<command>": the agent that does the work');
  if (values.single && values.reviewerResume !== undefined)
    throw new UsageError('--single runs the primary alone: leave out --reviewer-resume');
  if (values.single && values.reviewer !== undefined)
    throw new UsageError('--single runs the primary alone: leave out --reviewer, or --single');
  if (!values.single && values.reviewer === undefined)
    throw new UsageError('loop needs --reviewer "<command>", or --single to run the primary alone');
  const { mode, maxIterations } = values;
  // --mode claude or codex: the reviewer is that agent, and its verdict decides.
  const names =
    mode === 'claude' || mode === 'codex'
      ? ({ primary: mode === 'claude' ? 'codex' : 'claude', reviewer: mode } as const)
      : undefined;
  return {
    prompt,
    primary: {
      command: splitCommand('--primary', values.primary),
      ...resumeArgs('--primary-resume', values.primaryResume),
      ...(names && { name: names.primary }),
    },
    ...(values.reviewer !== undefined && {
      reviewer: {
        command: splitCommand('--reviewer', values.reviewer),
        ...resumeArgs('--reviewer-resume', values.reviewerResume),
        ...(names && { name: names.reviewer }),
      },
    }),
    ...(maxIterations !== undefined && { maxIterations }),
    ...(mode !== undefined && { reviewMode: mode }),
    ...(values.doneSignal !== undefined && { doneSignal: values.doneSignal }),
  };
}

/** `--resume` continues a loop with the settings it was started with: the options that set them may not come along. */
function refuseSettingsOnResume(command: Command, prompt: string | undefined): void {
  const given = command.options.filter(
    (option) => option.helpGroupHeading === STARTING && command.getOptionValue(option.attributeName()) !== undefined,
  );
  if (prompt === undefined && given.length === 0) return;
  throw new UsageError(
    `--resume continues a loop with the settings it was started with: leave out ${[...(prompt === undefined ? [] : ['the task']), ...given.map((option) => option.long)].join(', ')}`,
  );
}

const starting = (flags: string, description: string) => new Option(flags, description).helpGroup(STARTING);

export function loopCommand(cli: Cli): Command {
  const command = new Command('loop')
    .summary('run a review loop of two agents (primary works, reviewer reviews), or resume one')
    .description(
      'Runs a review loop: the primary works on the task, the reviewer reviews, until the primary says DONE (--single) or the review passes, fails, or the iterations run out.\n' +
        'statewright loop --resume <run id or agent session id> picks a loop up again where it stopped.',
    )
    .argument('[task]', 'what the primary agent is to do')
    .addOption(
      starting(
        '--primary <command>',
        "the working agent: reads its prompt on stdin, writes Claude Code's stream-json or Codex's exec JSON",
      ),
    )
    .addOption(starting('--reviewer <command>', 'the reviewing agent (same protocol)'))
    .addOption(
      starting(
        '--primary-resume <args>',
        `arguments that continue the primary's session from its second run on, {session} standing for its id: --primary-resume="--resume {session}" (Claude Code), "resume {session}" after "codex exec --json", or a whole command starting with the primary's program`,
      ),
    )
    .addOption(starting('--reviewer-resume <args>', 'the same for the reviewer'))
    .addOption(starting('--single', 'no reviewer: the primary works until it says DONE'))
    .addOption(
      starting(
        '--max-iterations <n>',
        `fail the loop after n iterations (default ${DEFAULT_MAX_ITERATIONS})`,
      ).argParser(wholeNumber(1)),
    )
    .addOption(
      starting(
        '--mode <mode>',
        'claude or codex: the reviewer is that agent and its verdict decides; claudex (the default): both agents must say PASS',
      ).choices(REVIEW_MODES),
    )
    .addOption(
      starting('--done-signal <token>', `the word the primary ends with when done (default ${DEFAULT_DONE_SIGNAL})`),
    )
    .addOption(starting('--id <run>', 'name the run (default a generated id)'))
    .option('--resume <run>', 'continue the loop with this run id or agent session id')
    .option('--loops-dir <dir>', `where loops keep manifest, transcript and agent logs (default ${DEFAULT_LOOPS_DIR})`)
    .option('--grace-ms <ms>', 'SIGTERM to SIGKILL when an agent is stopped (default 5000)', wholeNumber(1))
    .addOption(storeOption())
    .addHelpText('after', '\nCtrl-C stops the running agent and fails the loop as "context cancelled".');
  return command.action(
    cli.exitsWith(async (prompt: string | undefined, values: LoopOptions) => {
      let settings: LoopSettingsInput | undefined;
      if (values.resume !== undefined) refuseSettingsOnResume(command, prompt);
      else settings = settingsFrom(values, prompt, command.helpInformation());
      const { graceMs } = values;

      const print = (line: string) => process.stdout.write(`${line}\n`);
      const store = await openStore(values.store);
      try {
        const wiring = reviewLoopLifecycle({
          ...(values.loopsDir && { dir: values.loopsDir }),
          ...(graceMs !== undefined && { graceMs }),
        });
        // No loop is restored by itself (recover: false): one is picked up only when asked, with --resume.
        const runtime = await createRuntime({ store, machines: lifecycles, actors: wiring.actors, recover: false });
        const loops = await wiring.attach(runtime);
        let run: LoopRun | undefined;
        let interrupted = false;
        const onInterrupt = () => {
          interrupted = true;
          print('\ninterrupted: stopping the agent, the loop fails as "context cancelled"');
          if (run) void loops.cancel(run.runId, 'SIGINT to the runner');
        };
        process.once('SIGINT', onInterrupt);
        try {
          const onEntry = (entry: Parameters<typeof loopLine>[0]) => {
            const line = entry.type === 'end' ? undefined : loopLine(entry);
            if (line) print(line);
          };
          if (settings) {
            try {
              run = await loops.start(settings, { ...(values.id && { id: values.id }), onEntry });
            } catch (error) {
              if (error instanceof LoopConfigError) throw new UsageError(error.message);
              throw error;
            }
          } else {
            run = await loops.resume(values.resume!, { onEntry });
            const manifest = (await loops.record(run.runId)).manifest;
            print(
              isTerminalRunState(manifest.state)
                ? `loop ${run.runId} has already ended:`
                : `resuming loop ${run.runId}: ${manifest.state}, iteration ${manifest.iteration}`,
            );
          }
          if (interrupted) await loops.cancel(run.runId, 'SIGINT to the runner');
          const outcome: LoopOutcome = await run.finished;
          print(`${outcome.state} after ${outcome.iterations} iteration(s): ${outcome.reason ?? outcome.error ?? ''}`);
          print(`transcript: ${outcome.runDir}/transcript.jsonl`);
          return outcome.state === 'complete' ? 0 : 1;
        } finally {
          process.off('SIGINT', onInterrupt);
          await loops.close();
          await runtime.close();
        }
      } finally {
        await store.close();
      }
    }),
  );
}
