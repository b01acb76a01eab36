/**
 * Issue #17's hosts on a real network: two `statewright serve` hosts, each in a network namespace
 * of its own (iproute2, as root), reach Postgres across veth pairs (through a TCP forwarder on the
 * root side: Postgres listens on 127.0.0.1). One host's link is cut while its process stays alive:
 * its runs move to the other host. When the link comes back, its late writes are refused and it
 * stops hosting those runs. Then it is killed: each host has a hostname of its own, as on another
 * machine, so its death shows only in its leases running out, and its runs move then. Without root,
 * `ip` or `unshare` the test is skipped, saying why.
 */
import { writeFileSync } from 'node:fs';
import { expect, it, onTestFinished } from 'vitest';
import { signalGroup } from '../../src/os/process-identity.js';
import { postgresStore } from '../../src/stores/postgres/postgres-store.js';
import { dropSchema, freshSchema, requirePostgres, skipPostgres, url } from '../stores/test-postgres.js';
import { testDir } from '../stores/temp-dir.js';
import { auditRuns, recordedAgents } from '../support/chaos-audit.js';
import { agentFiles, chaosWorkload, lastPhase, silentSession, type PlannedRun } from '../support/chaos-workload.js';
import {
  createNetworkNamespace,
  networkNamespacesUnavailable,
  type NetworkNamespace,
} from '../support/network-namespace.js';
import { leaseLosses } from '../support/lease-loss-log.js';
import { EventLedger, sendRouted } from '../support/routed-events.js';
import { ServeCluster } from '../support/serve-cluster.js';
import { untilSettled } from '../support/settled-runs.js';
import { heldBy, takenOver } from '../support/takeover-watch.js';
import { startTcpForwarder, type TcpForwarder } from '../support/tcp-forwarder.js';
import { until } from '../support/until.js';

const unavailable = skipPostgres ? 'STATEWRIGHT_SKIP_POSTGRES=1' : networkNamespacesUnavailable();
if (unavailable) console.warn(`test/serve/chaos-netns.test.ts skipped: ${unavailable}`);

const TTL_MS = 1500;
const token = 'chaos-netns-token';

it.skipIf(unavailable !== undefined)(
  `a host cut off from the network loses its runs to the other and its late writes are refused; killed, as on another machine, its runs move when its leases run out${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  async () => {
    requirePostgres();
    const schema = freshSchema();
    const audit = await postgresStore({ connectionString: url, schema });
    const dir = testDir('chaos-netns');
    const files = agentFiles(dir);
    const namespaces = new Map<string, NetworkNamespace>();
    const forwarders: TcpForwarder[] = [];
    const plans: PlannedRun[] = chaosWorkload(12, files);
    let cluster: ServeCluster | undefined;
    // Processes first (a namespace lives on while a process is in it), then the network, then the schema.
    onTestFinished(async () => {
      for (const host of cluster?.all() ?? []) signalGroup(host.serve.pid, 'SIGKILL');
      for (const pid of recordedAgents(files, plans)) signalGroup(pid, 'SIGKILL');
      await Promise.all(forwarders.map((forwarder) => forwarder.close()));
      for (const namespace of namespaces.values()) namespace.remove();
      await audit.close();
      await dropSchema(schema);
    });

    const postgres = new URL(url);
    for (const id of ['a', 'b']) {
      const namespace = createNetworkNamespace();
      namespaces.set(id, namespace);
      forwarders.push(
        await startTcpForwarder(namespace.outside, { host: postgres.hostname, port: Number(postgres.port || 5432) }),
      );
    }
    const storeUrl = (id: string) => {
      const target = new URL(url);
      target.hostname = namespaces.get(id)!.outside;
      target.port = String(forwarders[id === 'a' ? 0 : 1]!.port);
      target.searchParams.set('schema', schema);
      return target.toString();
    };
    cluster = new ServeCluster({
      cwd: dir,
      args: (id) => [
        '--host',
        namespaces.get(id)!.inside,
        '--token',
        token,
        '--store',
        storeUrl(id),
        '--create',
        '--host-id',
        id,
        '--lease-ttl',
        String(TTL_MS),
        '--hibernate-after',
        '600000',
      ],
      // Each host a machine of its own (its own hostname): only its leases tell whether it is alive.
      process: (id) => ({ within: namespaces.get(id)!.execAs(`chaos-host-${id}`) }),
    });
    const a = await cluster.start('a');
    await cluster.start('b');
    const call = (host: string, method: string, path: string, body?: unknown) =>
      fetch(`${cluster!.host(host).serve.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(60_000),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));

    // Each names its own machine on its leases: no host can tell another's death by its pid.
    for (const id of ['a', 'b'])
      expect((await call(id, 'GET', '/api/host')).body).toMatchObject({ hostId: id, host: `chaos-host-${id}` });

    // Every run starts on host a, across its link.
    const ledger = new EventLedger();
    for (const plan of plans)
      expect(
        await call('a', 'POST', '/api/runs', { machine: plan.machine, id: plan.runId, input: plan.input }),
      ).toMatchObject({ status: 201 });
    const phase = async (n: number) => {
      for (const plan of plans) {
        for (const [index, step] of plan.steps.entries()) {
          if (step.phase === n)
            await sendRouted(
              cluster!,
              audit,
              ledger,
              { runId: plan.runId, event: step.event, actor: step.actor, idempotencyKey: `${plan.runId}:${index}` },
              { accepts: (answer) => step.mayFindRunEnded === true && answer.error === 'InvalidTransitionError' },
            );
        }
      }
    };
    await phase(0);
    await until(
      "host a's working sessions to run",
      async () =>
        (await audit.list({ machine: 'session', state: 'running' })).length ===
        plans.filter((p) => p.kind === 'working session').length,
      60_000,
      100,
    );
    // Work in flight on a when it is cut off: start deadlines that pass while it cannot reach the store.
    const fresh = [0, 1].map((i) => silentSession(`cut-off-${i}`, files, Math.round(TTL_MS * 0.6)));
    plans.push(...fresh);
    for (const plan of fresh)
      expect(
        await call('a', 'POST', '/api/runs', { machine: plan.machine, id: plan.runId, input: plan.input }),
      ).toMatchObject({ status: 201 });

    const held = await heldBy(audit, 'a');
    expect(held.size).toBeGreaterThan(0);
    const cutAt = Date.now();
    namespaces.get('a')!.cut();
    const takeovers = await takenOver(audit, held, cutAt, "host a's link cut");
    expect(new Set(takeovers.map((t) => t.by))).toEqual(new Set(['b']));
    expect(a.serve.child.exitCode).toBeNull(); // a ran all along
    namespaces.get('a')!.mend();

    // An event host a would have applied before: refused now, and a second one names the new holder.
    const execution = plans.find((p) => p.kind === 'execution' && held.has(p.runId))!;
    const late = await until(
      'host a to answer once its link is back',
      () =>
        call('a', 'POST', `/api/runs/${execution.runId}/events`, {
          event: { type: 'CANCEL' },
          idempotencyKey: `${execution.runId}:late`,
        }).catch(() => undefined),
      60_000,
      200,
    );
    expect([late.status, late.body.error, late.body.message]).toEqual([
      409,
      expect.stringMatching(/^(LeaseLostError|RunHeldError)$/),
      expect.any(String),
    ]);
    const again = await call('a', 'POST', `/api/runs/${execution.runId}/events`, {
      event: { type: 'CANCEL' },
      idempotencyKey: `${execution.runId}:late-again`,
    });
    expect([again.status, again.body.error, again.body.message]).toEqual([
      409,
      'RunHeldError',
      expect.stringContaining("hosted by 'b'"),
    ]);
    // Its own late commits (the start deadlines) reach the fence.
    await until(
      'host a to log the lease it lost',
      () => /LeaseLostError|not held by 'a'/.test(a.serve.stderr()),
      60_000,
      100,
    );

    // A dead host on another machine: nobody can check its pid, so its runs move once their leases
    // run out. It is given runs of its own again (an execution and a session), then killed.
    const doomed = {
      runId: 'killed-execution',
      machine: 'execution' as const,
      kind: 'execution' as const,
      input: {},
      steps: [
        { phase: 0, event: { type: 'ENQUEUE' }, actor: 'chaos-client' },
        { phase: 4, event: { type: 'CANCEL' }, actor: 'chaos-client' },
      ],
    };
    const doomedSession = silentSession('killed-session', files, 120_000);
    plans.push(doomed, doomedSession);
    for (const plan of [doomed, doomedSession])
      expect(
        await call('a', 'POST', '/api/runs', { machine: plan.machine, id: plan.runId, input: plan.input }),
      ).toMatchObject({ status: 201 });
    await sendRouted(cluster, audit, ledger, {
      runId: doomed.runId,
      event: doomed.steps[0]!.event,
      actor: 'chaos-client',
      idempotencyKey: `${doomed.runId}:0`,
    });
    await until(
      "host a's session agent to be spawned",
      async () => (await audit.history(doomedSession.runId)).some((e) => e.event.type === 'agent.spawned'),
      60_000,
      100,
    );
    const heldAtKill = await heldBy(audit, 'a');
    expect([...heldAtKill.keys()]).toEqual(expect.arrayContaining(['killed-execution', 'killed-session']));
    const killedAt = await cluster.kill('a');
    const killTakeovers = await takenOver(audit, heldAtKill, killedAt, 'host a killed');

    await phase(1);
    await phase(2);
    await phase(3);
    await phase(lastPhase(3));
    for (const plan of plans)
      if (plan.kind === 'working session') writeFileSync(files.releaseFile(plan.runId), 'finish\n');
    await untilSettled(audit, plans);
    const verdict = await auditRuns(audit, plans, ledger.acknowledged, files);
    const ms = takeovers.map((t) => t.afterMs).sort((x, y) => x - y);
    const figures = {
      test: 'chaos-netns',
      ttlMs: TTL_MS,
      runs: plans.length,
      takeovers: takeovers.length,
      takeoverMs: { median: ms[Math.floor(ms.length / 2)], max: ms.at(-1) },
      killedRemoteHostTakeovers: killTakeovers.length,
      killedRemoteHostTakeoverMs: Math.max(...killTakeovers.map((t) => t.afterMs)),
      ...leaseLosses(a.serve.stderr()),
      lateAnswers: [late.body.error, again.body.error],
      acknowledgedEvents: ledger.acknowledged.length,
      timersFired: verdict.timers,
      agentSpawns: verdict.spawns,
    };
    console.log(`chaos figures: ${JSON.stringify(figures)}`);
    expect(verdict.problems).toEqual([]);
  },
  240_000,
);
