/**
 * A TCP proxy on loopback between a client and Postgres that cuts connections at COMMIT. It reads
 * the frontend stream message by message (the startup message has no type byte; every later one is
 * a type byte and a length), and for every `every`-th COMMIT (a simple query, or a Parse, whose text
 * is COMMIT) it either forwards it and then drops the connection before the reply can come back
 * (the server commits; the client cannot know), or drops the connection without forwarding it (the
 * server rolls back). The two alternate.
 */
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

export interface CommitCuttingProxy {
  readonly port: number;
  /** COMMITs forwarded and then cut off from their reply. */
  readonly cutAfter: number;
  /** COMMITs dropped with their connection, never forwarded. */
  readonly cutBefore: number;
  /** COMMITs seen in all. */
  readonly commits: number;
  /** From now on, forwards everything. */
  stopCutting(): void;
  close(): Promise<void>;
}

const COMMIT = /^\s*COMMIT\s*;?\s*$/i;

/** The SQL of a simple query ('Q') or a Parse ('P') message, given its body (after the length). */
function sqlOf(type: number, body: Buffer): string | undefined {
  if (type === 0x51) return body.toString('utf8', 0, body.indexOf(0));
  if (type === 0x50) {
    const nameEnd = body.indexOf(0); // the statement name comes first
    return body.toString('utf8', nameEnd + 1, body.indexOf(0, nameEnd + 1));
  }
  return undefined;
}

/** `onCut` is called at each cut, before the client can notice it (a test may close the proxy there). */
export async function commitCuttingProxy(target: { host: string; port: number }, every: number, onCut?: () => void): Promise<CommitCuttingProxy> {
  const sockets = new Set<Socket>();
  const counts = { cutAfter: 0, cutBefore: 0, commits: 0 };
  let cutting = true;
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
        const sql = type === -1 ? undefined : sqlOf(type, message.subarray(5));
        if (sql !== undefined && COMMIT.test(sql) && ++counts.commits % every === 0 && cutting) {
          const forward = (counts.cutAfter + counts.cutBefore) % 2 === 0;
          if (forward) {
            counts.cutAfter++;
            client.destroy(); // the client hears nothing more
            upstream.end(message); // the server reads COMMIT, then the end of the stream
          } else {
            counts.cutBefore++;
            client.destroy();
            upstream.destroy();
          }
          onCut?.();
          return;
        }
        upstream.write(message);
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
    stopCutting() {
      cutting = false;
    },
    close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      return closed;
    },
  };
}
