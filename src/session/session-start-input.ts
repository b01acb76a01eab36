/**
 * What a session's input gets from its host when the caller leaves it out: `created_at` (the host's
 * now) and `log_path` (`<logDir>/<run id>.jsonl`, where the agent's output and its pid record are
 * kept, on the machine the agent runs on). `statewright serve`'s lifecycle host fills it so for
 * `start` and POST /api/runs, and a Restate worker's run objects for a session started there, so a
 * session is started with just `{ query, config }` on either.
 */
import { join, resolve } from 'node:path';
import type { StartInput } from '../runtime/lifecycle-wiring.js';

export function sessionStartInput(logDir: string): StartInput {
  const dir = resolve(logDir);
  return (input, { runId, now }) =>
    // Anything but an object is the machine's to refuse, with its own message.
    typeof input === 'object' && input !== null && !Array.isArray(input)
      ? { created_at: now, log_path: join(dir, `${runId}.jsonl`), ...input }
      : input;
}
