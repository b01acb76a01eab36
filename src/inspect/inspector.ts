import { createWebSocketInspector } from '@statelyai/inspect';
import { createInspectorServer } from '@statelyai/inspect/server';
import type { InspectionEvent } from 'xstate';

export interface LiveInspector {
  /** Give this to `createRuntime({ inspect })`. */
  readonly inspect: (event: InspectionEvent) => void;
  /** Open this in a browser to watch the runs in the Stately inspector. */
  readonly url: string;
  stop(): void;
}

/**
 * Serves the Stately inspector bridge on localhost: a page at `url` that embeds the inspector and
 * relays, over a websocket, the inspection events of every committed step of every run.
 */
export function startInspector(options: { port?: number; open?: boolean } = {}): LiveInspector {
  const port = options.port ?? 8080;
  const server = createInspectorServer({ port, autoOpen: options.open ?? false });
  const inspector = createWebSocketInspector({ url: `ws://localhost:${port}` });
  return {
    inspect: (event) => inspector.inspect.next?.(event),
    url: `http://localhost:${port}`,
    stop() {
      inspector.stop();
      server.stop();
    },
  };
}
