/**
 * The review loop's events: the seed's triggers, which src/review-loop/ reads from each finished
 * agent run, and the agent actor's reports. The payloads the guards check are zod schemas.
 */
import { z } from 'zod';
import type { AgentProcessRecord, Verdict } from './context.js';

export const agentSessionSchema = z.object({ sessionId: z.string().min(1) });
export const errorSchema = z.object({ error: z.string().min(1) });

/** `at` is stamped by the runtime on every event; the machine never reads a wall clock. */
type Stamped = { at?: number };
export type ReviewLoopEvent = Stamped &
  (
    | { type: 'AGENTS_STARTED' }
    | { type: 'AGENT_START_FAILED'; error: string }
    | { type: 'PRIMARY_FINISHED'; verdict?: Verdict; reason?: string }
    | { type: 'DONE'; reason?: string }
    | { type: 'PASS'; reason?: string }
    | { type: 'CHANGES_REQUESTED'; reason?: string }
    | { type: 'FAIL'; reason?: string }
    | { type: 'AGENT_ERROR'; error: string }
    | { type: 'CANCEL'; reason?: string }
    | ({ type: 'agent.spawned' } & AgentProcessRecord)
    | { type: 'agent.session'; sessionId: string }
  );
export type ReviewLoopEventType = ReviewLoopEvent['type'];
