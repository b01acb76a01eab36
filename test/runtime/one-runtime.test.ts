/**
 * One runtime hosts all five lifecycles at once, each with its real actors, wired the one way
 * (`<lifecycle>Lifecycle(options)`: actors into createRuntime, API attached): the session's and the
 * codon's different `agent` actors side by side. A run of each goes a few steps with the stand-in
 * agents of examples/agents/, then everything closes: the APIs, the runtime, the store.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createAgentProcess } from '../../src/actors/agent-process.js';
import { codonLifecycle } from '../../src/codon/index.js';
import { reviewLoopLifecycle } from '../../src/review-loop/index.js';
import { createRuntime, type CommittedStep, type Runtime, type RuntimeError } from '../../src/runtime/index.js';
import { sessionLifecycle } from '../../src/session/index.js';
import { sqliteStore } from '../../src/stores/index.js';
import { taskLifecycle } from '../../src/task/index.js';
import { isolateGit, makeRepo } from '../support/git-repo.js';
import { tempDir } from '../stores/temp-dir.js';

const agent = (name: string) => fileURLToPath(new URL(`../../examples/agents/${name}.sh`, import.meta.url));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
beforeAll(isolateGit);

/** Resolves with the first committed step of `runId` that reaches `state` (or at once if it is there). */
function reaches(runtime: Runtime, runId: string, state: (name: string) => boolean, timeoutMs = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(async () => {
      stop();
      const now = await runtime.getSnapshot(runId).catch(() => undefined);
      reject(
        new Error(`run ${runId} did not reach the state within ${timeoutMs} ms: it is ${now?.state ?? 'not there'}`),
      );
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      stop();
      resolve();
    };
    const stop = runtime.subscribe((step: CommittedStep) => step.runId === runId && state(step.after) && done());
    runtime.getSnapshot(runId).then(
      (now) => state(now.state) && done(),
      () => {},
    );
  });
}

it('hosts execution, session, codon and codon-run, review-loop and task runs with their real actors at once, and closes cleanly', async () => {
  const dir = await tempDir('one-runtime');
  cleanups.push(() => dir.remove());
  const repo = await makeRepo();
  cleanups.push(repo.remove);
  const project = join(dir.path, 'project');
  const store = sqliteStore(join(dir.path, 'state.db'));
  cleanups.push(() => store.close());

  const agentProcess = createAgentProcess({ pollMs: 20 });
  const sessions = sessionLifecycle({ logDir: join(dir.path, 'sessions'), agent: agentProcess, activity: false });
  const codons = codonLifecycle({ agent: agentProcess });
  const reviewLoops = reviewLoopLifecycle({ baseDir: dir.path, graceMs: 500 });
  const tasks = taskLifecycle({ dir: project, runsChecks: true });
  const errors: RuntimeError[] = [];
  const runtime = await createRuntime({
    store,
    machines: lifecycles,
    actors: { ...sessions.actors, ...codons.actors, ...reviewLoops.actors, ...tasks.actors },
    onError: (error) => errors.push(error),
  });
  cleanups.push(() => runtime.close());
  // The two `agent` actors are each their machine's: one runtime holds both.
  expect(Object.keys({ ...sessions.actors, ...codons.actors, ...reviewLoops.actors, ...tasks.actors }).sort()).toEqual([
    'codon',
    'review-loop',
    'session',
    'task',
  ]);

  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'ferrus.toml'), '[checks]\ncommands = ["test -s NOTES.md"]\n');
  writeFileSync(join(project, 'NOTES.md'), 'release notes\n');

  const daemon = await sessions.attach(runtime);
  const manager = await codons.attach(runtime);
  const loops = await reviewLoops.attach(runtime);
  const task = await tasks.attach(runtime);

  // execution: the registry's machine, no service, straight through the runtime.
  await runtime.start('execution', { id: 'job-1' });
  for (const type of ['ENQUEUE', 'START', 'SUCCEED'] as const) await runtime.dispatch('job-1', { type });

  // session: the session's agent actor runs the stand-in, which reports its session id and exits 0.
  const sessionDone = new Promise<string>((resolve) =>
    daemon.onStatusChanged(
      (c) =>
        c.session_id === 's-1' && (c.new_status === 'completed' || c.new_status === 'failed') && resolve(c.new_status),
    ),
  );
  await daemon.launch({ id: 's-1', query: 'Say done', config: { command: [agent('succeed')] } });

  // codon and codon-run: the codon's agent actor (a different one under the same name) runs the stand-in in the repository.
  await manager.transitionAndWait({
    type: 'RunStarted',
    data: {
      runId: 'run-1',
      runFolder: 'runs/run-1',
      gitBranch: 'main',
      startingConditions: { type: 'fresh' },
      serverPid: process.pid,
    },
  });
  await manager.transitionAndWait({
    type: 'CodonStarted',
    data: {
      runId: 'run-1',
      codonId: 'notes',
      workTree: repo.dir,
      agent: {
        command: [agent('succeed')],
        prompt: 'Write the notes.',
        logPath: join(dir.path, 'codon.log'),
        env: { STANDIN_WRITE: 'NOTES.md' },
      },
      pricing: { input: 3, output: 15, cacheCreation: 3.75, cacheRead: 0.3 },
    },
  });

  // review-loop: its three actors start and run the two stand-in agents until the review passes.
  const loop = await loops.start(
    {
      prompt: 'Implement the one step.',
      reviewMode: 'codex',
      primary: { name: 'claude', command: [agent('review-loop-primary')] },
      reviewer: { name: 'codex', command: [agent('review-loop-reviewer')], env: { LOOP_REVIEWER: 'pass-at:1' } },
    },
    { id: 'loop-1' },
  );

  // task: the check runner runs the project's check command.
  await task.ensureRun();
  await task.send('supervisor:claude:1', { type: 'create_task', task: 'Write NOTES.md' });
  await task.send('executor:codex:1', { type: 'claim' });
  await task.send('executor:codex:1', { type: 'check' });

  expect(await sessionDone).toBe('completed');
  await reaches(runtime, 'run-1/notes/1', (state) => state === 'completed');
  expect(await loop.finished).toMatchObject({ state: 'complete', iterations: 1 });
  await reaches(runtime, 'task', (state) => state === 'Active.Working.Checking.Passed');

  expect((await runtime.getSnapshot('job-1')).state).toBe('success');
  expect(await daemon.get('s-1')).toMatchObject({
    status: 'completed',
    claude_session_id: expect.any(String),
    cost_usd: 0.0123,
  });
  const codon = manager.getCodon('run-1', 'notes');
  expect(codon).toMatchObject({ status: 'completed', finalCost: 0.0123 });
  expect((await runtime.history('run-1/notes/1')).filter((r) => r.event.type === 'agent.spawned')).toHaveLength(1);
  // The codon's checkpoint actor committed what its agent wrote.
  expect(
    await repo.git(
      'show',
      '--name-only',
      '--format=',
      (codon as { completionCheckpoint: string }).completionCheckpoint,
    ),
  ).toContain('NOTES.md');
  expect((await task.current()).context).toMatchObject({ checkRetries: 0 });
  expect(errors).toEqual([]);

  await Promise.all([daemon.close(), manager.close(), loops.close(), task.close()]);
  await runtime.close();
  // Every run is in the store as it ended, and nothing is left running.
  expect(
    await store.list({ status: 'active' }).then((runs) => runs.map((r) => `${r.machine} ${r.runId} ${r.state}`)),
  ).toEqual(['codon-run run-1 running', 'task task Active.Working.Checking.Passed']);
}, 60_000);
