/**
 * Approving after a deny through serve's event route (what the view and `statewright send` use):
 * the documented ApprovalNotPendingError (409), saying what became of the approval, not the
 * machine's InvalidTransitionError. On the API app in this process.
 */
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { apiApp } from '../../src/serve/api-app.js';
import { StepStreams } from '../../src/serve/step-stream.js';
import { memoryStore } from '../../src/stores/index.js';
import { testDir } from '../stores/temp-dir.js';

const runtimes: Runtime[] = [];
afterEach(async () => {
  while (runtimes.length) await runtimes.pop()!.close();
});

it('answers an approve after a deny, and a decision on an unknown approval, with ApprovalNotPendingError', async () => {
  const runtime = await createRuntime({ store: memoryStore(), machines: lifecycles });
  runtimes.push(runtime);
  const app = apiApp({
    runtime,
    start: (machine, options) => runtime.start(machine as 'execution', options),
    steps: new StepStreams(runtime),
    guard: { boundHost: '127.0.0.1' },
    uiDir: testDir('approval-not-pending'),
  });
  const send = async (event: object) => {
    const response = await app.request('http://127.0.0.1/api/runs/s-1/events', {
      method: 'POST',
      headers: { host: '127.0.0.1', 'content-type': 'application/json' },
      body: JSON.stringify({ event, actor: 'alice' }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  await runtime.start('session', {
    id: 's-1',
    input: {
      query: 'Fix it',
      created_at: Date.now(),
      log_path: join(testDir('approval-not-pending-log'), 's-1.jsonl'),
    },
  });
  await runtime.dispatch('s-1', { type: 'agent.session', sessionId: 'claude-1' });
  await runtime.dispatch('s-1', { type: 'APPROVAL_REQUESTED', approval_id: 'a1', tool_name: 'Bash', tool_input: {} });
  expect((await send({ type: 'APPROVAL_RESOLVED', approval_id: 'a1', decision: 'denied' })).status).toBe(200);

  const again = await send({ type: 'APPROVAL_RESOLVED', approval_id: 'a1', decision: 'approved' });
  expect(again.status).toBe(409);
  expect(again.body).toMatchObject({ error: 'ApprovalNotPendingError', kind: 'conflict' });
  expect(again.body.message).toMatch(
    /^Cannot mark approval a1 of session s-1 approved: it is already denied \(at .+\); the session is running, pending approvals: none\.$/,
  );

  const unknown = await send({ type: 'APPROVAL_RESOLVED', approval_id: 'nope', decision: 'approved' });
  expect(unknown.body).toMatchObject({ error: 'ApprovalNotPendingError' });
  expect(unknown.body.message).toContain('the session has no such approval');
  // Other refusals keep their own error.
  expect((await send({ type: 'APPROVAL_REQUESTED', approval_id: 'a2', tool_name: 'Bash' })).body.error).toBe(
    'MetadataValidationError',
  );
});
