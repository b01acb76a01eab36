/**
 * The admin API's SQL query (what `status` and the step poller read runs with) against a stand-in
 * admin server on loopback: a cluster refuses queries with a 5xx while one of its partitions is still
 * starting (after a node's restart), so a query is sent again until it answers, within its patience;
 * a 4xx is the query's own fault and is refused at once, and patience spent gives the last refusal.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { AdminClient, RestateCallError } from '../../src/restate/index.js';

let server: Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A server answering each POST /query with the next status of `statuses` (the last one repeated). */
async function adminAnswering(statuses: number[]): Promise<{ url: string; asked: () => number }> {
  let asked = 0;
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const status = statuses[Math.min(asked, statuses.length - 1)]!;
      asked++;
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(status === 200 ? { rows: [{ n: 1 }] } : { message: `partition 3 is not available (${status})` }),
      );
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked: () => asked };
}

it('sends a query refused with a 5xx again until the cluster answers it', async () => {
  const admin = await adminAnswering([500, 503, 200]);
  expect(await new AdminClient(admin.url).query('SELECT 1')).toEqual([{ n: 1 }]);
  expect(admin.asked()).toBe(3);
});

it('refuses a query answered 4xx at once, and gives the last refusal when its patience is spent', async () => {
  const bad = await adminAnswering([400, 200]);
  await expect(new AdminClient(bad.url).query('SELEKT')).rejects.toMatchObject({ status: 400 });
  expect(bad.asked()).toBe(1);
  await new Promise((resolve) => server!.close(resolve));

  const down = await adminAnswering([503]);
  const refused = new AdminClient(down.url, { queryPatienceMs: 0 }).query('SELECT 1');
  await expect(refused).rejects.toBeInstanceOf(RestateCallError);
  await expect(refused).rejects.toThrow(/503.*partition 3 is not available/);
  expect(down.asked()).toBe(1);
});
