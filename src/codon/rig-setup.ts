/**
 * Rig setup, the codon's `preparing` state (the machine's `rigSetup` actor): copy files and run
 * commands in the run's working tree, in order, then commit the rig checkpoint and send
 * preparing -> starting with its SHA. The first failing step (unless it allows failure) sends
 * preparing -> failed, retriable, with the step and its last line of output. Stopping the actor (the
 * codon was skipped meanwhile) kills the running command's process group and sends nothing.
 */
import { execa } from 'execa';
import { cp, mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { fromCallback, type EventObject } from 'xstate';
import type { RigOperation } from '../../machines/codon/config.js';
import type { RigSetupInput } from '../../machines/codon/actor-inputs.js';
import { rigSetupFailed } from '../../machines/codon/final-status.js';
import { signalGroup } from '../os/process-identity.js';
import type { ActorFactory, RunHandle } from '../actor-contract/run-handle.js';
import { createCheckpoint } from './git-checkpoint.js';
import { sendTransition } from './send-transition.js';
import { StatewrightError } from '../errors.js';

/** A step that failed, with what to report. */
class RigStepError extends StatewrightError {
  readonly kind = 'setup';
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** `path` resolved against the work tree, refused if it leads outside it. */
function inside(workTree: string, path: string, what: string): string {
  const full = resolve(workTree, path);
  const rel = relative(resolve(workTree), full);
  if (rel.startsWith('..') || isAbsolute(rel))
    throw new RigStepError(`${what} '${path}' is outside the work tree ${workTree}`, -1);
  return full;
}

const lastLine = (text: string) => text.trimEnd().split('\n').pop()?.slice(0, 300) ?? '';

interface Cancellation {
  cancelled: boolean;
  /** Kills whatever step is running. */
  kill?: () => void;
}

async function runStep(
  workTree: string,
  operation: RigOperation,
  index: number,
  cancel: Cancellation,
  run: RunHandle,
): Promise<void> {
  const label = `rig step ${index + 1}`;
  if (operation.type === 'copy') {
    const to = inside(workTree, operation.to, `${label}: copy target`);
    const from = resolve(workTree, operation.from);
    await mkdir(dirname(to), { recursive: true });
    await cp(from, to, { recursive: true, force: true }).catch((error: Error) => {
      throw new RigStepError(`${label}: copying '${operation.from}' to '${operation.to}' failed: ${error.message}`, -1);
    });
    return;
  }
  const cwd = inside(workTree, operation.cwd ?? '.', `${label}: directory`);
  const subprocess = execa('sh', ['-c', operation.run], {
    cwd,
    detached: true,
    stdin: 'ignore',
    all: true,
    reject: false,
  });
  cancel.kill = () => subprocess.pid !== undefined && signalGroup(subprocess.pid, 'SIGKILL');
  const result = await subprocess;
  cancel.kill = undefined;
  if (!result.failed || cancel.cancelled) return;
  const how = result.signal
    ? `was killed by ${result.signal}`
    : result.exitCode === undefined
      ? `could not run (${result.shortMessage})`
      : `failed with exit code ${result.exitCode}`;
  const detail = lastLine(String(result.all ?? ''));
  const message = `${label} \`${operation.run}\` ${how}${detail ? `: ${detail}` : ''}`;
  if (operation.allowFailure) {
    run.log('warn', `${message} (allowed to fail, continuing)`);
    return;
  }
  throw new RigStepError(message, result.exitCode ?? -1);
}

export const rigSetup: ActorFactory = (run) =>
  fromCallback<EventObject, RigSetupInput>(({ input }) => {
    const cancel: Cancellation = { cancelled: false };
    const key = `rig:${input.attempt}`;
    const setUp = async () => {
      for (const [index, operation] of input.operations.entries()) {
        if (cancel.cancelled) return undefined;
        await runStep(input.workTree, operation, index, cancel, run);
      }
      if (input.operations.length === 0 || cancel.cancelled) return undefined;
      return createCheckpoint({ ...input, type: 'rig-setup' }).catch((error: Error) => {
        throw new RigStepError(`the rig checkpoint failed: ${error.message}`, -1);
      });
    };
    // A stopped rig setup reports nothing (its codon moved on); the log says it ended.
    const stopped = () => run.log('info', 'the rig setup was stopped: nothing reported');
    run.afterCommit(() => {
      if (cancel.cancelled) return;
      setUp().then(
        (checkpoint) => {
          if (cancel.cancelled) return stopped();
          const metadata = checkpoint ? { checkpointSha: checkpoint.sha } : undefined;
          sendTransition(
            run,
            input.codonId,
            { from: 'preparing', to: 'starting', ...(metadata && { metadata }) },
            key,
            'rig',
            `rig setup done (${input.operations.length} steps)`,
          );
        },
        (error: Error) => {
          if (cancel.cancelled) return stopped();
          const exitCode = error instanceof RigStepError ? error.exitCode : -1;
          sendTransition(run, input.codonId, rigSetupFailed(exitCode, error.message), key, 'rig', error.message);
        },
      );
    });
    return () => {
      cancel.cancelled = true;
      // Killed once the step that stopped it is durable; if that step is undone, the restored actor
      // sets the rig up anew, so this one is killed then too.
      run.afterStop(() => cancel.kill?.());
    };
  });
