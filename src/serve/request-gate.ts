/**
 * Where serve's requests enter, so its host can be replaced under them (a config reload): `hold`
 * lets the requests in flight finish, holds new ones until the work is done, then lets them in to
 * the listener `serve` named meanwhile. No request meets a host half closed. The step stream is
 * not waited for (its clients stay for as long as they like): it follows the new host by itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

type Listener = (request: IncomingMessage, response: ServerResponse) => unknown;

export class RequestGate {
  #listener: Listener;
  #inFlight = 0;
  #drained: (() => void) | undefined;
  #holding: Promise<unknown> | undefined;

  constructor(listener: Listener) {
    this.#listener = listener;
  }

  /** Answers requests with `listener` from now on. */
  serve(listener: Listener): void {
    this.#listener = listener;
  }

  handle(request: IncomingMessage, response: ServerResponse): unknown {
    if (this.#holding) return this.#holding.then(() => this.handle(request, response));
    if (!isStepStream(request.url)) {
      this.#inFlight++;
      response.once('close', () => {
        if (--this.#inFlight === 0) this.#drained?.();
      });
    }
    return this.#listener(request, response);
  }

  /** Runs `work` once the requests in flight have been answered, holding every new one until it is done. */
  async hold<T>(work: () => Promise<T>): Promise<T> {
    const done = (async () => {
      while (this.#inFlight > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
      this.#drained = undefined;
      return work();
    })();
    const holding = done.then(
      () => {},
      () => {},
    );
    this.#holding = holding;
    try {
      return await done;
    } finally {
      if (this.#holding === holding) this.#holding = undefined;
    }
  }

  /** Resolves once no `hold` is under way. */
  async held(): Promise<void> {
    while (this.#holding) await this.#holding;
  }
}

/** `/api/steps`, the step stream, whatever its query. */
const isStepStream = (url: string | undefined) => url !== undefined && /^\/api\/steps(?:\?|$)/.test(url);
