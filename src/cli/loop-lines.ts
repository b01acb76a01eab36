import type { TranscriptEntry } from '../review-loop/transcript.js';

/** The last line of an agent's output: where agents put their verdict. */
const lastLine = (text: string, max = 100) => {
  const line = text.trim().split('\n').pop()!.trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
};

/** How `statewright loop` shows a transcript entry as it is written: one line, or none. */
export function loopLine(entry: TranscriptEntry): string | undefined {
  switch (entry.type) {
    case 'start':
      return `loop ${entry.runId}: ${entry.mode === 'paired' ? 'primary and reviewer' : 'primary alone'}, at most ${entry.maxIterations} iterations`;
    case 'iteration':
      return `iteration ${entry.iteration}`;
    case 'execution':
      return `  ${entry.agent.padEnd(8)} running ${entry.command.join(' ')}${entry.pid ? ` (pid ${entry.pid})` : ''}`;
    case 'result':
      return `  ${entry.agent.padEnd(8)} ${entry.isError ? 'error' : 'said'}: ${lastLine(entry.output)}`;
    case 'signal':
      return `  ${entry.agent.padEnd(8)} signal ${entry.signal.toUpperCase()}${entry.reason ? `: ${lastLine(entry.reason)}` : ''}`;
    case 'state':
      return `  ${entry.from} --${entry.event}--> ${entry.to}`;
    case 'error':
      return `  error: ${entry.error}`;
    case 'end':
      return `${entry.state} after ${entry.iterations} iteration(s)${entry.reason ? `: ${entry.reason}` : ''}${entry.error ? `: ${entry.error}` : ''}`;
    default:
      return undefined;
  }
}
