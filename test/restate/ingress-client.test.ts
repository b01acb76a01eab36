/**
 * The ingress client against one Restate node, around a registration: a call made while the run
 * objects' services are not yet known to the ingress (its 404 "service not found", as another node
 * answers right after a worker registered) is sent again with the same idempotency key until the
 * deployment is known, and applied once; a run that does not exist is still the typed
 * `UnknownRunError` at once, and a service never registered is refused with its 404 after the bound.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { UnknownRunError } from '../../src/runtime/errors.js';
import {
  AdminClient,
  restateEndpoint,
  restateRuntime,
  RestateCallError,
  type ListeningEndpoint,
} from '../../src/restate/index.js';
import { IngressClient } from '../../src/restate/ingress-client.js';
import { startRestateNode, type RestateNode } from './restate-node.js';

let node: RestateNode;
let listening: ListeningEndpoint;

beforeAll(async () => {
  node = await startRestateNode();
  listening = await restateEndpoint({ machines: { execution: lifecycles.execution }, token: node.token }).listen(0);
}, 120_000);

afterAll(async () => {
  await listening?.close();
  await node?.stop();
});

it('sends a call answered "service not found" again until the deployment registered a moment later is known, once', async () => {
  const client = restateRuntime({ ingress: node.ingress, admin: node.admin, token: node.token });
  try {
    // Not registered yet: the ingress answers the run directory's call with its own 404.
    const before = await fetch(`${node.ingress}/statewright-runs/early-1/machine`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'null',
    });
    expect([before.status, before.headers.get('x-restate-error-source')]).toEqual([404, 'ingress']);
    await before.text();

    const started = client.start('execution', { id: 'early-1' });
    await new AdminClient(node.admin).register(listening.url);
    expect(await started).toMatchObject({ runId: 'early-1', state: 'pending', seq: 0 });
    await client.dispatch('early-1', { type: 'ENQUEUE' });
    expect((await client.history('early-1')).map((entry) => entry.event.type)).toEqual(['ENQUEUE']);

    // A run that does not exist is the run object's answer, never retried: typed, at once.
    const asked = Date.now();
    await expect(client.getSnapshot('no-such-run')).rejects.toBeInstanceOf(UnknownRunError);
    expect(Date.now() - asked).toBeLessThan(2_000);
  } finally {
    await client.close();
  }
}, 60_000);

it('refuses a service still not found after the bound with its 404', async () => {
  const ingress = new IngressClient(node.ingress, { unregisteredMs: 300, token: node.token });
  const asked = Date.now();
  const error = await ingress.call('statewright-never-registered', 'k', 'snapshot', null).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RestateCallError);
  expect(error).toMatchObject({ status: 404 });
  expect((error as Error).message).toContain('Is a statewright worker registered');
  expect(Date.now() - asked).toBeGreaterThanOrEqual(300);
});
