import { createServer } from 'node:net';
import { createWebSocketReceiver } from '@statelyai/inspect';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { startInspector } from '../../src/inspect/inspector.js';
import { createRuntime } from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';
import { until } from '../support/until.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the Stately inspector', () => {
  it("receives a run's @xstate.snapshot events over a localhost websocket, in order, committed steps only", async () => {
    const port = await freePort();
    const inspector = startInspector({ port });
    const received: Array<{ type: string; sessionId?: string; snapshot?: { value?: unknown } }> = [];
    const receiver = createWebSocketReceiver({ server: `ws://localhost:${port}` });
    receiver.subscribe((event: any) => received.push(event));

    const rt = await createRuntime({ store: memoryStore(), machines: lifecycles, inspect: inspector.inspect });
    const { runId } = await rt.start('execution', { id: 'inspected-job' });
    await rt.dispatch(runId, { type: 'ENQUEUE' });
    await rt.dispatch(runId, { type: 'APPROVE' }).catch(() => {}); // refused: never shown
    await rt.dispatch(runId, { type: 'START' });
    await rt.dispatch(runId, { type: 'SUCCEED' });

    const values = () =>
      received
        .filter((e) => e.type === '@xstate.snapshot' && e.snapshot?.value !== undefined)
        .map((e) => e.snapshot!.value);
    await until('four snapshots at the receiver', () => values().length >= 4);
    expect(values()).toEqual(['pending', 'queued', 'running', 'success']);
    expect(received.some((e) => e.type === '@xstate.event' && JSON.stringify(e).includes('APPROVE'))).toBe(false);
    await rt.close();
    inspector.stop();
  });
});
