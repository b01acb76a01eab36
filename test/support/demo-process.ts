/**
 * `statewright demo` as a child process for the browser tests: on a temp SQLite store, its URL and
 * token read off what it prints, resolved once session-1's stand-in agent has spawned (that agent
 * leads a process group of its own, which ending the demo's does not reach: it is ended with the
 * test). Needs `npm run build` first.
 */
import { join } from 'node:path';
import { endWithTest, startCommand } from './child-processes.js';
import { lineOf } from './live-page.js';
import { until } from './until.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;

export async function startDemo(dir: string, pace = 50): Promise<{ url: string; token: string }> {
  const demo = startCommand(
    process.execPath,
    [bin, 'demo', '--store', `sqlite:${join(dir, 'state.db')}`, '--create', '--port', '0', '--pace', String(pace)],
    { cwd: dir, reject: false },
  );
  const [, url, token] = await lineOf(demo, /The live view: (http:\/\/\S+?)\/#token=(\S+)\n/);
  const agent = await until(
    'session-1 to spawn its agent',
    async () =>
      (
        await fetch(`${url}/api/runs/session-1/explain`, { headers: { authorization: `Bearer ${token}` } }).then((r) =>
          r.ok ? (r.json() as Promise<{ agent?: { pid: number } }>) : undefined,
        )
      )?.agent?.pid,
    60_000,
    100,
  );
  endWithTest(agent);
  return { url: url!, token: token! };
}
