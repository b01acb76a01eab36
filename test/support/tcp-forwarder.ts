/**
 * A TCP forwarder: listens on `host` (any free port) and pipes each connection to `target`. The
 * network-namespace test reaches Postgres, which listens on 127.0.0.1 only, through one bound to
 * the root side of a veth pair. A connection is piped as it is, so a link taken down in between
 * stalls it the way a real network would, rather than closing it.
 */
import { createConnection, createServer, type Socket } from 'node:net';

export interface TcpForwarder {
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startTcpForwarder(host: string, target: { host: string; port: number }): Promise<TcpForwarder> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    const upstream = createConnection(target);
    track(client);
    track(upstream);
    // Either side failing or ending ends the other: the peer sees the connection close.
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  return {
    host,
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
