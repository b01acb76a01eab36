/**
 * A client of a serve's step stream for one run (`GET /api/steps?run=<id>&since=<seq>`, server-sent
 * events): each step committed after `since`, the missed ones replayed first, as the run after it.
 * How `statewright mcp` waits for a person's decision or follows a run's state without polling.
 * Whatever way the stream fails while the serve is away (it ends, it breaks off, the connection is
 * refused, a 5xx), it is opened again from the last seq seen, with backoff, at the serve the
 * location finds then (serve-away.ts); only a refusal that stands (a 4xx) is reported. A stream that
 * stays silent past three of serve's keep-alive comments is taken for broken too: a connection
 * whose far end is gone without a word (a killed serve whose socket another process still holds, a
 * network that dropped it) is never ended, and would keep the caller waiting for ever.
 */
import type { RunJson } from '../serve/run-json.js';
import { callServer, runPath, ServerUnreachableError, type ServerTarget } from '../client/server-client.js';
import { backoff, isServeAway, type ServerLocation } from './serve-away.js';
import { KEEP_ALIVE_MS } from '../serve/step-stream-keep-alive.js';

/** How long a stream may say nothing (not even serve's keep-alive comment) before it is opened again. */
const SILENCE_MS = 3 * KEEP_ALIVE_MS;

interface StepData {
  readonly seq: number;
  readonly run?: RunJson;
}

export function watchSteps(
  location: ServerLocation,
  runId: string,
  since: number,
  listener: (run: RunJson) => void,
  onError: (error: Error) => void,
  silenceMs = SILENCE_MS,
): () => void {
  const abort = new AbortController();
  let seen = since;
  const step = async (server: ServerTarget, data: StepData) => {
    if (data.seq <= seen) return;
    // A replayed step before the last carries no run: the run as it is now stands for it.
    const run = data.run ?? (await callServer<{ run: RunJson }>(server, 'GET', runPath(runId))).run;
    // Seen once it is heard: a step whose run could not be read is read again after a reconnect.
    seen = data.seq;
    listener(run);
  };
  (async () => {
    const delays = backoff();
    while (!abort.signal.aborted) {
      const server = location.current();
      try {
        // A stream the server ends (a restart, a slow reader dropped) is opened again at once.
        if (await readStream(server, runId, seen, abort.signal, silenceMs, (data) => step(server, data)))
          delays.reset();
        continue;
      } catch (error) {
        if (abort.signal.aborted) return;
        if (!isServeAway(error)) throw error;
      }
      await delays.wait(abort.signal);
      location.lost();
    }
  })().catch((error: Error) => {
    if (!abort.signal.aborted) onError(error);
  });
  return () => abort.abort();
}

/** Reads one stream to its end; true once it was open. */
async function readStream(
  server: ServerTarget,
  runId: string,
  since: number,
  signal: AbortSignal,
  silenceMs: number,
  step: (data: StepData) => Promise<void>,
): Promise<boolean> {
  const url = `${server.url}/api/steps?run=${encodeURIComponent(runId)}&since=${since}`;
  const silent = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const heard = () => {
    clearTimeout(timer);
    timer = setTimeout(() => silent.abort(), silenceMs);
  };
  const silence = () => new ServerUnreachableError(server.url, `the step stream said nothing for ${silenceMs} ms`);
  heard();
  try {
    return await readOpened();
  } finally {
    clearTimeout(timer);
  }

  async function readOpened(): Promise<boolean> {
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { accept: 'text/event-stream', ...(server.token && { authorization: `Bearer ${server.token}` }) },
        signal: AbortSignal.any([signal, silent.signal]),
      });
    } catch (error) {
      if (signal.aborted) return false;
      if (silent.signal.aborted) throw silence();
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ServerUnreachableError(server.url, cause?.code ?? cause?.message ?? (error as Error).message);
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      // The same typed refusal the CLI would get (an unknown run, a wrong token, 503 while starting).
      await callServer(server, 'GET', runPath(runId));
      throw new ServerUnreachableError(server.url, `the step stream answered ${response.status}`);
    }
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        heard();
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
      if (signal.aborted || isServeAway(error)) throw error;
      if (silent.signal.aborted) throw silence();
      // The body broke off ("terminated"): the serve went away mid-stream.
      throw new ServerUnreachableError(server.url, `the step stream broke off: ${(error as Error).message}`);
    }
    return true;
  }
}
