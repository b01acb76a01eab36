/** The task's events: every one names its sender (`agent`); the payloads are zod schemas, used by the guards. */
import { z } from 'zod';
import type { AgentId } from './agent.js';

const text = z.string().trim().min(1, 'must not be empty');
/** Payloads, besides `agent`, that each event must carry. */
export const taskPayloads = {
  create_task: z.object({ task: text }),
  check_failed: z.object({
    failed: z.array(z.string()).min(1),
    feedback: z.string(),
    /** The check never finished (its process died): the executor checks again, no retry is spent. */
    interrupted: z.boolean().optional(),
  }),
  consult: z.object({ question: text }),
  respond_consult: z.object({ response: text }),
  ask_human: z.object({ question: text }),
  answer: z.object({ answer: text }),
  submit: z.object({ summary: text }),
  reject: z.object({ notes: text }),
};

/** The lease timer's event: which lease ran out (a timer of an older lease is refused). */
export interface LeaseExpiredEvent {
  type: 'lease_expired';
  holder: AgentId;
  leaseUntil: number;
  at?: number;
}

export interface TaskEventMeta {
  agent?: string;
  /** Stamped by the runtime. The machine does not read it: nothing it decides depends on time. */
  at?: number;
}
type Payload<K extends keyof typeof taskPayloads> = z.infer<(typeof taskPayloads)[K]>;

export type TaskEvent =
  | (TaskEventMeta &
      (
        | ({ type: 'create_task' } & Payload<'create_task'>)
        | { type: 'check' }
        | { type: 'check_passed'; warning?: string }
        | ({ type: 'check_failed' } & Payload<'check_failed'>)
        | ({ type: 'consult' } & Payload<'consult'>)
        | ({ type: 'respond_consult' } & Payload<'respond_consult'>)
        | { type: 'wait_for_consult' }
        | ({ type: 'ask_human' } & Payload<'ask_human'>)
        | ({ type: 'answer' } & Payload<'answer'>)
        | ({ type: 'submit' } & Payload<'submit'>)
        | { type: 'approve' }
        | ({ type: 'reject' } & Payload<'reject'>)
        | { type: 'reset' }
        | { type: 'claim' }
        | { type: 'heartbeat' }
      ))
  | LeaseExpiredEvent;

/** What the check runner is started with: the attempt number this check would be if it fails. */
export interface CheckRunInput {
  readonly attempt: number;
}
