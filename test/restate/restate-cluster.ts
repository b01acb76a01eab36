/**
 * A three-node Restate cluster on loopback for the cluster test: three server processes with their
 * own ports and base dirs, every node naming every node's fabric address, replication 2 on the
 * replicated loglet, the cluster provisioned by the first node only. `stop` kills every node and
 * removes the base dirs, also after a failed start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, startRestateNode, type RestateNode, type RestatePorts } from './restate-node.js';

export interface RestateCluster {
  readonly nodes: readonly RestateNode[];
  /** How long the three nodes took to serve their ingress and admin API, in ms. */
  readonly formedInMs: number;
  stop(): Promise<void>;
}

export async function startRestateCluster(size = 3): Promise<RestateCluster> {
  const root = mkdtempSync(join(tmpdir(), 'statewright-restate-cluster-'));
  const ports: RestatePorts[] = [];
  for (let i = 0; i < size; i++) ports.push(await freePorts());
  const metadata = ports.map((p) => `http://127.0.0.1:${p.fabric}`);
  const began = Date.now();
  const starting = ports.map((nodePorts, i) =>
    startRestateNode({
      name: `n${i + 1}`,
      cluster: 'statewright-cluster-test',
      metadata,
      autoProvision: i === 0,
      replication: 2,
      ports: nodePorts,
      baseDir: join(root, `n${i + 1}`),
    }),
  );
  const settled = await Promise.allSettled(starting);
  const nodes = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.kill()));
    rmSync(root, { recursive: true, force: true });
  };
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) {
    await stop();
    throw (failed as PromiseRejectedResult).reason;
  }
  return { nodes, formedInMs: Date.now() - began, stop };
}
