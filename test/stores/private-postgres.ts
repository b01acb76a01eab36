/**
 * A Postgres server of the test's own, in a temp folder on a free port, for faults that must not
 * touch the shared server (restarting it). It runs as the `postgres` user (`runuser`), so the test
 * must run as root with the server binaries installed; `privatePostgresUnavailable` says why not
 * when it cannot. The server is stopped (immediately) when the test finishes.
 */
import { accessSync, chownSync, constants, existsSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { onTestFinished } from 'vitest';
import { testDir } from './temp-dir.js';

const BIN = process.env.STATEWRIGHT_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** Why this machine cannot start a private server, or undefined when it can. */
export const privatePostgresUnavailable: string | undefined = (() => {
  if (process.getuid?.() !== 0) return 'the test must run as root to start a server as the postgres user';
  for (const tool of ['initdb', 'pg_ctl']) {
    try {
      accessSync(join(BIN, tool), constants.X_OK);
    } catch {
      return `no ${tool} in ${BIN} (set STATEWRIGHT_PG_BIN to the Postgres binaries)`;
    }
  }
  if (!existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser') && !existsSync('/usr/bin/runuser'))
    return 'no runuser to start the server as postgres';
  return undefined;
})();

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface PrivatePostgres {
  /** A connection string for its `postgres` database. */
  readonly url: string;
  /** Stops the server at once, as a crash would (`-m immediate`: no checkpoint, recovery on start), and starts it again. */
  restart(): Promise<void>;
}

const asPostgres = (tool: string, args: string[]) =>
  execa('runuser', ['-u', 'postgres', '--', join(BIN, tool), ...args]);

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = testDir('private-postgres');
  chownSync(
    dir,
    Number((await execa('id', ['-u', 'postgres'])).stdout),
    Number((await execa('id', ['-g', 'postgres'])).stdout),
  );
  const data = join(dir, 'data');
  await asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '--no-instructions']);
  const port = await freePort();
  // A socket folder of its own, and TCP on loopback only.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=40`;
  const ctl = (...args: string[]) =>
    asPostgres('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '120', ...args]);
  const postmasterPid = () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let pid = 0;
  onTestFinished(async () => {
    // pg_ctl needs the data folder, which the temp folder's own cleanup may have removed already.
    await ctl('-m', 'immediate', 'stop').catch(() => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Not running.
      }
    });
  });
  await ctl('-o', options, 'start');
  pid = postmasterPid();
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    async restart() {
      await ctl('-m', 'immediate', 'stop');
      await ctl('-o', options, 'start');
      pid = postmasterPid();
    },
  };
}
