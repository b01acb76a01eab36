/** The review loop's events for generated tests (`statewright test`, `statewright/testing`, this project's every-path suites), and its inputs. */
import type { EventObject } from 'xstate';

const CANCELLED = 'context cancelled: the person running the loop pressed Ctrl+C';

export const reviewLoopTesting = {
  // Small budgets keep the graph (whose states include the iteration counter) small, while two
  // iterations still reach both the "more work" and the "budget spent" branches.
  testInputs: [
    { maxIterations: 2, mode: 'paired' },
    { maxIterations: 2, mode: 'single' },
  ],
  testEvents: (type: string): Array<EventObject & Record<string, unknown>> => {
    switch (type) {
      case 'AGENT_START_FAILED':
        return [{ type, error: "reviewer command 'codex' not found on PATH" }, { type }];
      case 'AGENT_ERROR':
        return [
          { type, error: 'primary exited with code 1 before reporting a result' },
          { type, error: '' },
        ];
      case 'agent.spawned':
        return [
          { type, pid: 4242, pidStart: 'Thu Jan  1 00:00:00 2026', logPath: '/tmp/loop/1/primary.jsonl' },
          { type, pid: 4242 },
        ];
      case 'agent.session':
        return [
          { type, sessionId: 'session-1' },
          { type, sessionId: 7 },
        ];
      case 'PRIMARY_FINISHED':
        return [{ type, verdict: 'none' }];
      case 'DONE':
        return [{ type, reason: 'implemented and tested' }];
      case 'PASS':
        return [{ type, reason: 'all tests pass' }];
      case 'CHANGES_REQUESTED':
        return [{ type, reason: 'add a test for the empty input' }];
      case 'FAIL':
        return [{ type, reason: 'the task is impossible in this repository' }];
      case 'CANCEL':
        return [{ type, reason: CANCELLED }];
      default:
        return [];
    }
  },
};
