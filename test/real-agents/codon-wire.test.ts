/**
 * A real `codex exec --json` codon whose model calls go through statewright's metering proxy
 * (src/actors/agent-wire/), against the scripted model server: the running cost shows on the run
 * while the turn runs (Codex itself reports usage only when its turn ends), the call after the
 * budget is spent never reaches the model server and the codon completes `budgetExceeded`; a dead
 * upstream fails the codon within a minute with the cause, where Codex alone waits for the network.
 */
import { createServer } from 'node:net';
import { once } from 'node:events';
import { beforeAll, describe, expect, test } from 'vitest';
import { isolateGit } from '../support/git-repo.js';
import type { ModelServer, Reply } from './model-server/model-server.js';
import { startRealAgentCodon } from './real-agent-codon.js';
import { assertRealAgentsInstalled, codexCommand, codexEnv } from './real-agents.js';

/** USD per million tokens: 300 000 input tokens cost 0.6 USD. */
const PRICING = { input: 2, output: 10, cacheCreation: 2.5, cacheRead: 0.5 };
const CALL = { input: 300_000, output: 0 };

beforeAll(() => {
  assertRealAgentsInstalled();
  isolateGit();
});

/** A loopback port nothing listens on. */
async function deadPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

function codexAgent(url?: string) {
  return (server: ModelServer, home: string) => ({
    command: codexCommand(url ? ({ url } as ModelServer) : server, { home, args: ['-s', 'workspace-write'] }),
    env: codexEnv({ home }),
  });
}

describe('a codex codon at the wire', () => {
  test('the running cost shows while the turn runs; the call after the budget is spent is refused', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const script: Reply[] = [
      { blocks: [{ tool: 'exec_command', input: { cmd: 'echo one > one.md' } }], usage: CALL },
      {
        blocks: [{ tool: 'exec_command', input: { cmd: 'echo two > two.md' } }],
        usage: CALL,
        hold: held,
        holdAfterEvents: 0,
      },
      { blocks: [{ text: 'Done.' }], usage: CALL },
    ];
    const codon = await startRealAgentCodon({ script, pricing: PRICING, budgetUsd: 1, agent: codexAgent() });
    // The second call is held open by the model server: the first one's cost is on the run meanwhile.
    await codon.server.received(2);
    const running = await codon.when(
      (context) => context.agent?.wire?.calls === 1,
      'the first model call was not metered while the turn ran',
    );
    expect(running.codon).toMatchObject({ status: 'running' });
    expect(running.codon.currentCost).toBeCloseTo(0.6, 9);
    expect(running.agent.result).toBeUndefined();
    release();
    const record = await codon.done(60_000);
    expect(record).toMatchObject({ status: 'completed', budgetExceeded: true });
    expect(record.finalCost).toBeCloseTo(1.2, 9);
    // The third call never reached the model server.
    expect(codon.server.requests).toHaveLength(2);
    const events = await codon.history();
    expect(events.filter((event) => event.type === 'agent.metered')).toHaveLength(2);
  }, 90_000);

  test('a dead upstream fails the codon within a minute with the cause', async () => {
    const port = await deadPort();
    const started = Date.now();
    const codon = await startRealAgentCodon({
      script: [],
      pricing: PRICING,
      agent: codexAgent(`http://127.0.0.1:${port}`),
    });
    const record = await codon.done(60_000);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(record).toMatchObject({ status: 'failed' });
    expect(record.failureReason).toMatchObject({ type: 'api-error', retriable: true });
    expect(record.failureReason.message).toContain(`connection refused to 127.0.0.1:${port}`);
  }, 90_000);
});
