/**
 * One codon whose agent is a real CLI (claude or codex), hosted by a runtime on the memory store
 * with the codon's real actors in a real git repository, its agent answered by a scripted model
 * server of its own: what the codon tests of both CLIs share. Everything it makes (server,
 * repository, agent home, runtime and with it the agent's process tree) goes when the test ends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import type { AgentPricing } from '../../machines/agent-pricing.js';
import type { CodonInput } from '../../machines/codon/index.js';
import { lifecycles } from '../../machines/index.js';
import { createAgentProcess } from '../../src/actors/agent-process.js';
import { codonLifecycle } from '../../src/codon/codon-lifecycle.js';
import { createRuntime, type RunSnapshot } from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';
import { makeRepo } from '../support/git-repo.js';
import { ModelServer, type Reply } from './model-server/model-server.js';

export interface RealAgentCodonOptions {
  readonly script: Reply[];
  /** The agent's command line and environment, given the model server and the agent's own home folder. */
  readonly agent: (server: ModelServer, home: string) => { command: string[]; env: Record<string, string> };
  readonly pricing: AgentPricing;
  readonly budgetUsd?: number;
  /** More of the codon's input (`wire`, `upstreamFailures`, `stallTimeoutMs`...). */
  readonly input?: Partial<CodonInput>;
}

/** Fails naming `what` when `promise` has not settled in `ms`: a hang is a failure, not a stuck suite. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} (not within ${ms} ms)`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Starts the codon; `done` resolves with its record once the run is done. */
export async function startRealAgentCodon(options: RealAgentCodonOptions) {
  const server = await ModelServer.start(options.script);
  onTestFinished(() => server.close());
  const repo = await makeRepo('codon-real-agent-');
  onTestFinished(repo.remove);
  // Outside the work tree: the agent's own files are not the codon's work.
  const home = mkdtempSync(join(tmpdir(), 'codon-agent-home-'));
  onTestFinished(() => rmSync(home, { recursive: true, force: true }));
  const input: CodonInput = {
    runId: 'run-1',
    codonId: 'build',
    startedAt: Date.now(),
    workTree: repo.dir,
    agent: {
      ...options.agent(server, home),
      prompt: 'Write the notes.',
      logPath: join(repo.dir, '.git', 'statewright', 'build.log'),
      graceMs: 500,
    },
    pricing: options.pricing,
    ...(options.budgetUsd !== undefined && { budgetUsd: options.budgetUsd }),
    ...options.input,
  };
  const { actors } = codonLifecycle({ sentinels: () => [], agent: createAgentProcess({ pollMs: 20 }) });
  const runtime = await createRuntime({ store: memoryStore(), machines: lifecycles, actors });
  // Closing the runtime stops the agent actor, which ends whatever is left of the agent's process tree.
  onTestFinished(() => runtime.close());
  const finished = new Promise<RunSnapshot>((resolve) => {
    const stop = runtime.subscribe((step) => {
      if (step.runId !== 'codon-1' || step.snapshot.status !== 'done') return;
      stop();
      resolve(step.snapshot);
    });
  });
  await runtime.start('codon', { id: 'codon-1', input });
  const done = async (ms = 20_000) =>
    (await within(finished, ms, 'the codon did not finish')).context.codon as Record<string, any>;
  const history = async () => (await runtime.history('codon-1')).map((record) => record.event);
  /** Resolves with the codon's context at the first committed step (or the current one) that `test` accepts. */
  const when = (test: (context: Record<string, any>) => boolean, what: string, ms = 20_000) => {
    const seen = new Promise<Record<string, any>>((resolve) => {
      const stop = runtime.subscribe((step) => {
        if (step.runId !== 'codon-1' || !test(step.snapshot.context as Record<string, any>)) return;
        stop();
        resolve(step.snapshot.context as Record<string, any>);
      });
      void runtime.getSnapshot('codon-1').then((run) => {
        if (!test(run.context as Record<string, any>)) return;
        stop();
        resolve(run.context as Record<string, any>);
      });
    });
    return within(seen, ms, what);
  };
  return { done, history, when, repo, server };
}
