/**
 * Which lifecycle each run id belongs to, as a virtual object keyed by run id. A run is started
 * through it, so an id is taken once across every lifecycle (`RunExistsError`), and a client finds
 * the run object of an id it was only given (`machine`, a shared handler that never queues).
 */
import * as restate from '@restatedev/restate-sdk';
import type { Lifecycles } from '../../machines/lifecycle.js';
import { InvalidArgumentError, RunExistsError, UnknownMachineError, UnknownRunError } from '../runtime/errors.js';
import type { RunSnapshot } from '../runtime/run-snapshot.js';
import { ok, refused, type Answer } from './answer.js';
import { checked, type CallerCheck } from './caller-check.js';
import { runObjectName, RUN_DIRECTORY } from './object-names.js';
import { IDEMPOTENCY_RETENTION_MS, type StartRequest } from './run-object.js';

const MACHINE = 'machine';

export function runDirectory(machines: Lifecycles, check: CallerCheck) {
  return restate.object({
    name: RUN_DIRECTORY,
    description: 'statewright: the lifecycle of each run id',
    // Every client call carries an idempotency key so that a retry after a lost answer applies nothing
    // twice; its answer is kept for an hour (Restate's default is a day), which covers any retry.
    options: { enableLazyState: true, idempotencyRetention: IDEMPOTENCY_RETENTION_MS },
    handlers: {
      start: checked(
        check,
        async (
          ctx: restate.ObjectContext,
          request: StartRequest & { machine: string },
        ): Promise<Answer<RunSnapshot>> => {
          // Refused as a value, typed: a body that is not a start request would otherwise throw, and Restate retry it.
          if (typeof request?.machine !== 'string')
            return refused(
              new InvalidArgumentError(
                'start request',
                request,
                'an object with a string machine, e.g. {"machine":"execution"}',
              ),
            );
          if (await ctx.get<string>(MACHINE)) return refused(new RunExistsError(ctx.key));
          if (!Object.hasOwn(machines, request.machine))
            return refused(new UnknownMachineError(request.machine, Object.keys(machines)));
          ctx.set(MACHINE, request.machine);
          const answer = await ctx.genericCall<StartRequest, Answer<RunSnapshot>>({
            service: runObjectName(request.machine),
            method: 'start',
            key: ctx.key,
            parameter: { input: request.input, at: request.at },
            inputSerde: restate.serde.json,
            outputSerde: restate.serde.json,
          });
          // Refused (its machine threw at start): the id was never taken.
          if ('refused' in answer) ctx.clear(MACHINE);
          return answer;
        },
      ),

      machine: restate.handlers.object.shared(
        checked(check, async (ctx: restate.ObjectSharedContext): Promise<Answer<string>> => {
          const machine = await ctx.get<string>(MACHINE);
          return machine ? ok(machine) : refused(new UnknownRunError(ctx.key));
        }),
      ),
    },
  });
}
