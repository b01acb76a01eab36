/**
 * A TCP proxy on loopback between a client and Postgres that cuts connections at commits. It reads
 * the frontend stream message by message (the startup message has no type byte; every later one is
 * a type byte and a length). A commit is a simple query, or an extended-protocol exchange (Parse,
 * Bind, Execute... up to its Sync), whose statement is COMMIT or one of the store's commit
 * statements (they open with `COMMIT_MARK`); a Bind names its statement, so a prepared statement parsed once on a connection
 * is recognised every time it runs. For every `every`-th commit it either forwards it and then drops
 * the connection before the reply can come back (the server commits; the client cannot know), or
 * drops the connection without forwarding it (the server rolls back). The two alternate, unless
 * told to cut only before forwarding (`cutOnlyBefore`).
 *
 * It also counts round trips: every Sync and every simple query is one wait for the server.
 */
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { COMMIT_MARK } from '../../src/stores/postgres/statements.js';

export interface CommitCuttingProxy {
  readonly port: number;
  /** Commits forwarded and then cut off from their reply. */
  readonly cutAfter: number;
  /** Commits dropped with their connection, never forwarded. */
  readonly cutBefore: number;
  /** Commits seen in all. */
  readonly commits: number;
  /** Round trips the clients asked for (Syncs and simple queries), cut ones included. */
  readonly roundTrips: number;
  /** From now on, forwards everything. */
  stopCutting(): void;
  /** From now on, every cut drops the commit without forwarding it. */
  cutOnlyBefore(): void;
  close(): Promise<void>;
}

const COMMIT = new RegExp(`^\\s*COMMIT\\s*;?\\s*$|^${COMMIT_MARK.replace(/[*/]/g, '\\$&')}`, 'i');

const QUERY = 0x51;
const PARSE = 0x50;
const BIND = 0x42;
const SYNC = 0x53;

/** The NUL-terminated string at `start` of `body`, and where the next field begins. */
function cString(body: Buffer, start: number): [string, number] {
  const end = body.indexOf(0, start);
  return [body.toString('utf8', start, end), end + 1];
}

/** `onCut` is called at each cut, before the client can notice it (a test may close the proxy there). */
export async function commitCuttingProxy(
  target: { host: string; port: number },
  every: number,
  onCut?: () => void,
): Promise<CommitCuttingProxy> {
  const sockets = new Set<Socket>();
  const counts = { cutAfter: 0, cutBefore: 0, commits: 0, roundTrips: 0 };
  let cutting = true;
  let onlyBefore = false;
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {}); // a cut connection's late writes fail; that is the point
      s.setNoDelay(true); // as pg does: else Nagle holds each small message back for a delayed ack
    }
    upstream.on('data', (chunk) => client.writable && client.write(chunk));
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());

    /** This connection's prepared statements, by name, with their SQL. */
    const statements = new Map<string, string>();
    /** The extended-protocol messages since the last Sync, held back until it comes. */
    let group: Buffer[] = [];
    let groupCommits = false;
    /** Whether this message (a commit's last) is to be cut; sends it, or not, and cuts. */
    const cut = (messages: Buffer[]): boolean => {
      if (!cutting || ++counts.commits % every !== 0) return false;
      const forward = !onlyBefore && (counts.cutAfter + counts.cutBefore) % 2 === 0;
      client.destroy(); // the client hears nothing more
      if (forward) {
        counts.cutAfter++;
        upstream.end(Buffer.concat(messages)); // the server reads the commit, then the end of the stream
      } else {
        counts.cutBefore++;
        upstream.destroy();
      }
      onCut?.();
      return true;
    };

    let pending: Buffer = Buffer.alloc(0);
    let started = false;
    client.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : Buffer.from(chunk);
      for (;;) {
        const header = started ? 5 : 4;
        if (pending.length < header) return;
        const length = pending.readInt32BE(started ? 1 : 0) + (started ? 1 : 0);
        if (pending.length < length) return;
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        const type = started ? message[0]! : -1;
        started = true;
        const body = message.subarray(5);
        if (type === QUERY) {
          counts.roundTrips++;
          if (COMMIT.test(cString(body, 0)[0]) && cut([message])) return;
          upstream.write(message);
          continue;
        }
        if (type === PARSE) {
          const [name, next] = cString(body, 0);
          const sql = cString(body, next)[0];
          statements.set(name, sql);
          if (COMMIT.test(sql)) groupCommits = true;
        } else if (type === BIND) {
          const [, next] = cString(body, 0); // the portal
          if (COMMIT.test(statements.get(cString(body, next)[0]) ?? '')) groupCommits = true;
        }
        if (type === -1) {
          upstream.write(message);
          continue;
        }
        group.push(message);
        if (type !== SYNC) continue;
        counts.roundTrips++;
        const messages = group;
        const commits = groupCommits;
        group = [];
        groupCommits = false;
        if (commits && cut(messages)) return;
        upstream.write(Buffer.concat(messages));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get cutAfter() {
      return counts.cutAfter;
    },
    get cutBefore() {
      return counts.cutBefore;
    },
    get commits() {
      return counts.commits;
    },
    get roundTrips() {
      return counts.roundTrips;
    },
    stopCutting() {
      cutting = false;
    },
    cutOnlyBefore() {
      onlyBefore = true;
    },
    close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      return closed;
    },
  };
}
