import { reviewLoopTesting } from '../../../machines/review-loop/test-events.js';
import type { LifecycleModel } from './model.js';

/**
 * ../shared/seeds/review-loop-state-machine.txt, "Valid Transitions", row for row. The seed names
 * triggers, not events; each trigger became the event named in its row. Its working -> failed row
 * has two triggers ("Agent error or max iterations"), so it is two rows here.
 */
export const reviewLoopModel: LifecycleModel = {
  seedTable: [
    ['init', 'AGENTS_STARTED', 'working'], // Agents started successfully
    ['init', 'AGENT_START_FAILED', 'failed'], // Agent failed to start
    ['working', 'PRIMARY_FINISHED', 'reviewing'], // Primary agent finished iteration
    ['working', 'DONE', 'complete'], // Primary agent signaled DONE
    ['working', 'AGENT_ERROR', 'failed'], // Agent error ...
    ['working', 'PRIMARY_FINISHED', 'failed'], // ... or max iterations (the last allowed iteration ended without DONE)
    ['reviewing', 'CHANGES_REQUESTED', 'working'], // Review requires more work
    ['reviewing', 'PASS', 'complete'], // Review passed (PASS signal)
    ['reviewing', 'AGENT_ERROR', 'failed'], // Unrecoverable review failure (the reviewer crashed or reported an error)
  ],
  additions: [
    ['init', 'CANCEL', 'failed', 'seed failure condition "Context cancelled": Ctrl+C while the agents start'],
    [
      'working',
      'CANCEL',
      'failed',
      'seed failure condition "Context cancelled": Ctrl+C stops the primary and fails the loop',
    ],
    [
      'reviewing',
      'CANCEL',
      'failed',
      'seed failure condition "Context cancelled": Ctrl+C stops the reviewer and fails the loop',
    ],
    ['working', 'FAIL', 'failed', 'seed failure condition "FAIL signal": the primary explicitly fails'],
    [
      'reviewing',
      'FAIL',
      'failed',
      'seed failure condition "FAIL signal": the review (or claudex consensus) says FAIL',
    ],
    [
      'reviewing',
      'CHANGES_REQUESTED',
      'failed',
      'seed failure condition "Max iterations": the review asks for more work but the budget is spent, so the loop fails instead of starting iteration max+1',
    ],
    [
      'working',
      'PRIMARY_FINISHED',
      'working',
      'single-agent mode (agentpair --claude-only/--codex-only): no reviewer, the primary starts its next iteration',
    ],
    [
      'working',
      'agent.spawned',
      'working',
      "the primary's process (pid, start time, log) is recorded so a restored run adopts it instead of spawning a second agent",
    ],
    [
      'working',
      'agent.session',
      'working',
      "the primary's session id is recorded for resume by session id and to continue its conversation",
    ],
    ['reviewing', 'agent.spawned', 'reviewing', "the reviewer's process is recorded, as for the primary"],
    ['reviewing', 'agent.session', 'reviewing', "the reviewer's session id is recorded, as for the primary"],
  ],
  samples: reviewLoopTesting.testEvents,
  inputs: reviewLoopTesting.testInputs,
};
