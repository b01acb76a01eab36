import { parseArgs } from 'node:util';
import { REVIEW_MODES } from '../../review-loop/consensus.js';
import { isTerminalRunState } from '../../review-loop/run-state.js';
import { lifecycles } from '../../../machines/index.js';
import { reviewLoopLifecycle, type LoopOutcome, type LoopRun } from '../../review-loop/review-loops.js';
import { createRuntime } from '../../runtime/runtime.js';
import { LoopConfigError, type LoopSettingsInput } from '../../review-loop/settings.js';
import type { Command } from '../command.js';
import { loopLine } from '../loop-lines.js';
import { openStore, STORE_HELP } from '../open-store.js';
import { splitCommand } from '../split-command.js';
import { UsageError } from '../usage-error.js';

const HELP = `statewright loop "<task>" --primary "<command>" --reviewer "<command>" [options]
statewright loop --resume <run id or agent session id> [--store, --loops-dir]

  --primary <command>      the working agent: reads its prompt on stdin, writes stream-json
  --reviewer <command>     the reviewing agent (same protocol)
  --primary-resume <args>  arguments that continue the primary's session from its second run on,
                           {session} standing for its id: --primary-resume="--resume {session}"
  --reviewer-resume <args> the same for the reviewer
  --single                 no reviewer: the primary works until it says DONE
  --max-iterations <n>     fail the loop after n iterations (default 20)
  --mode <m>               claude or codex: the reviewer is that agent and its verdict decides;
                           claudex (default): both agents' verdicts must be PASS
  --done-signal <token>    the word the primary ends with when done (default DONE)
  --id <run id>            name the run (default a generated id)
  --loops-dir <dir>        where loops keep manifest, transcript and agent logs (default .statewright/loops)
  --grace-ms <ms>          SIGTERM to SIGKILL when an agent is stopped (default 5000)
  ${STORE_HELP}
Ctrl-C stops the running agent and fails the loop as "context cancelled".`;

const positiveInt = (option: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`${option} must be a whole number of at least 1, not '${value}'`);
  return Number(value);
};

const resumeArgs = (option: string, value: string | boolean | undefined) => {
  if (typeof value !== 'string') return {};
  const args = splitCommand(option, value);
  if (!args.some((arg) => arg.includes('{session}'))) throw new UsageError(`${option} must say where the session id goes, e.g. ${option}="--resume {session}"`);
  return { resumeArgs: args };
};

function settingsFrom(values: Record<string, string | boolean | undefined>, prompt: string | undefined): LoopSettingsInput {
  if (!prompt) throw new UsageError(`loop needs the task as its argument:\n${HELP}`);
  if (typeof values.primary !== 'string') throw new UsageError('loop needs --primary "<command>": the agent that does the work');
  if (values.single && values['reviewer-resume'] !== undefined) throw new UsageError('--single runs the primary alone: leave out --reviewer-resume');
  if (values.single && values.reviewer !== undefined) throw new UsageError('--single runs the primary alone: leave out --reviewer, or --single');
  if (!values.single && typeof values.reviewer !== 'string') throw new UsageError('loop needs --reviewer "<command>", or --single to run the primary alone');
  const mode = values.mode as string | undefined;
  if (mode !== undefined && !(REVIEW_MODES as readonly string[]).includes(mode)) throw new UsageError(`--mode must be one of ${REVIEW_MODES.join(', ')}, not '${mode}'`);
  const maxIterations = positiveInt('--max-iterations', values['max-iterations'] as string | undefined);
  // --mode claude or codex: the reviewer is that agent, and its verdict decides.
  const names = mode === 'claude' || mode === 'codex' ? { primary: mode === 'claude' ? 'codex' : 'claude', reviewer: mode } as const : undefined;
  return {
    prompt,
    primary: { command: splitCommand('--primary', values.primary), ...resumeArgs('--primary-resume', values['primary-resume']), ...(names && { name: names.primary }) },
    ...(typeof values.reviewer === 'string' && {
      reviewer: { command: splitCommand('--reviewer', values.reviewer), ...resumeArgs('--reviewer-resume', values['reviewer-resume']), ...(names && { name: names.reviewer }) },
    }),
    ...(maxIterations !== undefined && { maxIterations }),
    ...(mode !== undefined && { reviewMode: mode as (typeof REVIEW_MODES)[number] }),
    ...(typeof values['done-signal'] === 'string' && { doneSignal: values['done-signal'] }),
  };
}

export const loopCommand: Command = {
  summary: 'run a review loop of two agents (primary works, reviewer reviews) or resume one: loop --help',
  async run(args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        primary: { type: 'string' },
        reviewer: { type: 'string' },
        'primary-resume': { type: 'string' },
        'reviewer-resume': { type: 'string' },
        single: { type: 'boolean' },
        'max-iterations': { type: 'string' },
        mode: { type: 'string' },
        'done-signal': { type: 'string' },
        resume: { type: 'string' },
        id: { type: 'string' },
        'loops-dir': { type: 'string' },
        'grace-ms': { type: 'string' },
        store: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    if (positionals.length > 1) throw new UsageError(`loop takes one task, got ${positionals.length} arguments: quote the task`);
    let settings: LoopSettingsInput | undefined;
    if (values.resume !== undefined) {
      const given = ['primary', 'reviewer', 'primary-resume', 'reviewer-resume', 'single', 'max-iterations', 'mode', 'done-signal', 'id'].filter((k) => values[k as keyof typeof values] !== undefined);
      if (positionals.length || given.length) throw new UsageError(`--resume continues a loop with the settings it was started with: leave out ${[...(positionals.length ? ['the task'] : []), ...given.map((k) => `--${k}`)].join(', ')}`);
    } else {
      settings = settingsFrom(values, positionals[0]);
    }
    const graceMs = positiveInt('--grace-ms', values['grace-ms']);

    const print = (line: string) => process.stdout.write(`${line}\n`);
    const store = await openStore(values.store);
    try {
      const wiring = reviewLoopLifecycle({
        ...(values['loops-dir'] && { dir: values['loops-dir'] }),
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
          print(isTerminalRunState(manifest.state) ? `loop ${run.runId} has already ended:` : `resuming loop ${run.runId}: ${manifest.state}, iteration ${manifest.iteration}`);
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
  },
};
