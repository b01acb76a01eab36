/**
 * A client of a serve's step stream for one run (`GET /api/steps?run=<id>&since=<seq>`, server-sent
 * events): each step committed after `since`, the missed ones replayed first, as the run after it.
 * How `statewright mcp` waits for a person's decision or follows a run's state without polling.
 * A stream the server ends (a restart, a slow reader dropped) is opened again from the last seq
 * seen; one that cannot be opened is reported.
 */
import type { RunJson } from '../serve/run-json.js';
import { callServer, runPath, ServerUnreachableError, type ServerTarget } from '../client/server-client.js';

interface StepData {
  readonly seq: number;
  readonly run?: RunJson;
}

export function watchSteps(
  server: ServerTarget,
  runId: string,
  since: number,
  listener: (run: RunJson) => void,
  onError: (error: Error) => void,
): () => void {
  const abort = new AbortController();
  let seen = since;
  const step = async (data: StepData) => {
    if (data.seq <= seen) return;
    seen = data.seq;
    // A replayed step before the last carries no run: the run as it is now stands for it.
    listener(data.run ?? (await callServer<{ run: RunJson }>(server, 'GET', runPath(runId))).run);
  };
  (async () => {
    while (!abort.signal.aborted) {
      await readStream(server, runId, seen, abort.signal, step);
    }
  })().catch((error: Error) => {
    if (!abort.signal.aborted) onError(error);
  });
  return () => abort.abort();
}

async function readStream(
  server: ServerTarget,
  runId: string,
  since: number,
  signal: AbortSignal,
  step: (data: StepData) => Promise<void>,
): Promise<void> {
  const url = `${server.url}/api/steps?run=${encodeURIComponent(runId)}&since=${since}`;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: 'text/event-stream', ...(server.token && { authorization: `Bearer ${server.token}` }) },
      signal,
    });
  } catch (error) {
    if (signal.aborted) return;
    throw new ServerUnreachableError(server.url, (error as Error).message);
  }
  if (!response.ok || !response.body) {
    // The same typed refusal the CLI would get (an unknown run, a wrong token).
    await callServer(server, 'GET', runPath(runId));
    throw new ServerUnreachableError(server.url, `the step stream answered ${response.status}`);
  }
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true }).replace(/\r\n/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end).split('\n');
        buffer = buffer.slice(end + 2);
        const field = (name: string) =>
          block
            .filter((line) => line.startsWith(`${name}:`))
            .map((line) => line.slice(name.length + 1).replace(/^ /, ''))
            .join('\n');
        if (field('event') === 'step') await step(JSON.parse(field('data')) as StepData);
      }
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}
