import type { EventObject } from 'xstate';
import { systemClock, type Clock } from '../../src/actor-contract/clock.js';
import type { LogLevel, RunHandle, SendOptions } from '../../src/actor-contract/run-handle.js';

/** An event as an actor sent it: its fields beyond `type` are the machine's to check. */
export type SentEvent = EventObject & Record<string, any>;

/** A RunHandle that records what an actor sends and logs, and optionally passes events on. */
export function recordingRun(options: { clock?: Clock; forward?: (event: SentEvent) => void } = {}) {
  const sent: Array<{ event: SentEvent; options: SendOptions | undefined }> = [];
  const logs: Array<{ level: LogLevel; message: string }> = [];
  const run: RunHandle = {
    runId: 'run-1',
    machine: 'task',
    clock: options.clock ?? systemClock,
    send(event, sendOptions) {
      sent.push({ event: event as SentEvent, options: sendOptions });
      options.forward?.(event as SentEvent);
    },
    afterCommit(effect) {
      queueMicrotask(effect);
    },
    afterStop(effect) {
      effect();
    },
    log(level, message) {
      logs.push({ level, message });
    },
  };
  return { run, sent, logs };
}
