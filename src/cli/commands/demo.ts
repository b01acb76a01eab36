import { transition, validEvents, type ExecutionEvent, type ExecutionState } from '../../../machines/execution.js';
import type { Command } from '../command.js';

/** A few executions a CI orchestrator sees every day, as the events that drive them. */
const scenarios: Array<[string, ExecutionEvent[]]> = [
  ['build', ['ENQUEUE', 'START', 'SUCCEED']],
  ['deploy (held for review)', ['HOLD', 'APPROVE', 'START', 'RECOVER', 'START', 'SUCCEED']],
  ['lint (agent lost)', ['ENQUEUE', 'START', 'RECOVER', 'FAIL']],
  ['e2e (cancelled by a push)', ['ENQUEUE', 'START', 'CANCEL_GRACEFUL', 'COMPLETE']],
  ['docs (skipped)', ['SKIP']],
];

export const demoCommand: Command = {
  summary: 'drive a few executions through their lifecycle and print every step',
  async run() {
    for (const [name, events] of scenarios) {
      let state: ExecutionState = 'pending';
      process.stdout.write(`${name}: ${state}`);
      for (const event of events) {
        state = transition(state, event);
        process.stdout.write(` --${event}--> ${state}`);
      }
      process.stdout.write(validEvents(state).length ? `  (accepts ${validEvents(state).join(', ')})\n` : '  (terminal)\n');
    }
    return 0;
  },
};
