/**
 * A scripted model server on loopback: the real `claude` and `codex` CLIs are pointed at it
 * (ANTHROPIC_BASE_URL, a Codex model provider) and it answers each model call with the next reply
 * of the test's script that accepts it, streamed as the API the caller speaks. It keeps every
 * request, so a test can read what the agent sent (a tool's result, the resumed conversation), and
 * it tells the test when a request arrives, so tests wait on calls, never on time.
 *
 * A call no reply accepts is answered 400 and kept in `unscripted`: a test that expects none
 * checks that list (`assertAllAnswered`), so an agent that asks more than the script expected is a
 * failure that names the call, not a hang.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { anthropicError, anthropicEvents } from './anthropic-stream.js';
import type { ModelRequest, Reply, StreamEvent } from './reply.js';
import { responsesError, responsesEvents } from './responses-stream.js';

export type { ModelRequest, Reply, ReplyBlock, ReplyUsage } from './reply.js';

interface Scripted {
  readonly reply: Reply;
  left: number;
}

export class ModelServer {
  readonly requests: ModelRequest[] = [];
  readonly unscripted: ModelRequest[] = [];
  readonly #script: Scripted[] = [];
  readonly #waiters: { count: number; resolve: () => void }[] = [];
  readonly #server: Server;
  #answered = 0;
  #url = '';

  private constructor() {
    this.#server = createServer((request, response) => void this.#handle(request, response));
  }

  static async start(script: readonly Reply[] = []): Promise<ModelServer> {
    const server = new ModelServer();
    server.script(...script);
    server.#server.listen(0, '127.0.0.1');
    await once(server.#server, 'listening');
    server.#url = `http://127.0.0.1:${(server.#server.address() as AddressInfo).port}`;
    return server;
  }

  /** The server's base URL, without a trailing slash (Claude's ANTHROPIC_BASE_URL; Codex's base_url adds `/v1`). */
  get url(): string {
    return this.#url;
  }

  /** Appends replies to the script. */
  script(...replies: Reply[]): void {
    for (const reply of replies) this.#script.push({ reply, left: reply.times ?? 1 });
  }

  /** Resolves once `count` model calls have been received in all (answered or not). */
  received(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  /** Fails naming every call no reply accepted. */
  assertAllAnswered(): void {
    if (this.unscripted.length === 0) return;
    const calls = this.unscripted.map(
      (request) => `${request.api}: ${JSON.stringify(request.texts.at(-1) ?? '').slice(0, 200)}`,
    );
    throw new Error(`the model server had no reply for ${calls.length} call(s):\n${calls.join('\n')}`);
  }

  /** How many scripted replies have not been used up (a test expecting all used checks 0). */
  get unusedReplies(): number {
    return this.#script.filter((scripted) => scripted.left > 0 && Number.isFinite(scripted.left)).length;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    this.#server.close();
    await once(this.#server, 'close').catch(() => undefined);
  }

  async #handle(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = incoming.url ?? '/';
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const api = path.startsWith('/v1/messages')
      ? 'messages'
      : path.startsWith('/v1/responses')
        ? 'responses'
        : undefined;
    if (incoming.method !== 'POST' || api === undefined || path.startsWith('/v1/messages/count_tokens')) {
      response
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: `no ${incoming.method} ${path} here` }));
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      response.writeHead(400).end('not JSON');
      return;
    }
    const request: ModelRequest = { api, path, headers: incoming.headers, body, texts: requestTexts(api, body) };
    this.requests.push(request);
    for (const waiter of this.#waiters.filter((w) => this.requests.length >= w.count)) {
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    const scripted = this.#script.find((s) => s.left > 0 && (s.reply.when?.(request) ?? true));
    if (!scripted) {
      this.unscripted.push(request);
      const message = 'the model server has no scripted reply for this call';
      sendJson(response, 400, api === 'messages' ? anthropicError(400, message) : responsesError(400, message));
      return;
    }
    scripted.left -= 1;
    await this.#answer(request, scripted.reply, response);
  }

  async #answer(request: ModelRequest, reply: Reply, response: ServerResponse): Promise<void> {
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (response.destroyed) return;
    if (reply.status !== undefined) {
      const message = reply.errorMessage ?? `scripted HTTP ${reply.status}`;
      sendJson(
        response,
        reply.status,
        request.api === 'messages' ? anthropicError(reply.status, message) : responsesError(reply.status, message),
      );
      return;
    }
    this.#answered += 1;
    const id = `${request.api === 'messages' ? 'msg' : 'resp'}_scripted_${this.#answered}`;
    const model = typeof request.body.model === 'string' ? request.body.model : 'scripted-model';
    const events = request.api === 'messages' ? anthropicEvents(reply, id, model) : responsesEvents(reply, id, model);
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    for (const [index, event] of events.entries()) {
      if (reply.cutAfterEvents !== undefined && index >= reply.cutAfterEvents) {
        response.destroy();
        return;
      }
      if (reply.hold && reply.holdAfterEvents === index) await reply.hold;
      if (response.destroyed) return;
      response.write(sse(event));
    }
    response.end();
  }
}

const sse = ({ event, data }: StreamEvent) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Every text a request carries, in order: message texts, tool results (both APIs' shapes), Codex's input items. */
function requestTexts(api: ModelRequest['api'], body: Record<string, unknown>): string[] {
  const texts: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      texts.push(value);
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const record = value as Record<string, unknown>;
    if (typeof record.text === 'string') texts.push(record.text);
    else if (record.type === 'function_call_output') visit(record.output);
    else if ('content' in record) visit(record.content);
  };
  visit(api === 'messages' ? body.messages : body.input);
  return texts;
}
