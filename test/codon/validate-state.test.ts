/**
 * Validation on load: corrupted_data, missing_run, missing_checkpoint (SHAs looked up in a real git
 * repository) and orphaned_folder as a warning.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { codonLifecycle } from '../../src/codon/codon-lifecycle.js';
import type { CodonStateEvent } from '../../src/codon/state-manager.js';
import { ManualClock, createRuntime } from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';
import { isolateGit, makeRepo } from '../support/git-repo.js';

beforeAll(isolateGit);
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

const MISSING_SHA = 'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef';

async function setUp() {
  const repo = await makeRepo();
  cleanups.push(repo.remove);
  const head = await repo.git('rev-parse', 'HEAD');
  const store = memoryStore();
  const runtime = await createRuntime({ store, machines: lifecycles, clock: new ManualClock() });
  const manager = await codonLifecycle({
    codonDefaults: { workTree: repo.dir, agent: { command: ['claude'], logPath: join(repo.dir, 'agent.log') } },
  }).attach(runtime);
  const c = { runId: 'run-1', codonId: 'build' };
  const events: CodonStateEvent[] = [
    {
      type: 'RunStarted',
      data: {
        runId: 'run-1',
        runFolder: 'run-1',
        gitBranch: 'main',
        startingConditions: { type: 'fresh', initialCheckpointSha: head },
        serverPid: 1,
      },
    },
    { type: 'InitialCheckpointSet', data: { sha: head } },
    { type: 'CodonStarted', data: c },
    { type: 'CodonTransitioned', data: { ...c, from: 'preparing', to: 'starting', metadata: { checkpointSha: head } } },
    {
      type: 'CodonTransitioned',
      data: { ...c, from: 'starting', to: 'initializing', metadata: { claudePid: 7, claudeLogPath: 'a.log' } },
    },
    {
      type: 'CodonTransitioned',
      data: { ...c, from: 'initializing', to: 'completed', metadata: { checkpointSha: MISSING_SHA } },
    },
  ];
  for (const event of events) await manager.transitionAndWait(event);
  return { repo, head, store, runtime, manager };
}

describe('validation on load', () => {
  it('finds a checkpoint SHA that is not a commit of the repository, and only that one', async () => {
    const { manager, repo } = await setUp();
    const result = await manager.validate();
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([
      expect.objectContaining({
        type: 'missing_checkpoint',
        runId: 'run-1',
        codonId: 'build',
        sha: MISSING_SHA,
        what: 'completionCheckpoint',
        path: repo.dir,
      }),
    ]);
    expect(result.errors[0]!.message).toContain(`completionCheckpoint ${MISSING_SHA} is not a commit in ${repo.dir}`);
    expect(result.warnings).toEqual([]);
  });

  it('warns of a run folder that belongs to no run; without the git look-ups the same state is valid', async () => {
    const { manager, repo, runtime } = await setUp();
    const runsDir = join(repo.dir, '.statewright');
    mkdirSync(join(runsDir, 'run-1'), { recursive: true });
    mkdirSync(join(runsDir, 'stray'), { recursive: true });
    const result = await manager.validate({ runsDir });
    expect(result.warnings).toEqual([
      expect.objectContaining({ type: 'orphaned_folder', path: join(runsDir, 'stray') }),
    ]);
    expect(result.errors.map((e) => e.type)).toEqual(['missing_checkpoint']);

    await runtime.close();
    const reopened = await codonLifecycle({ validation: { checkpoints: false } }).attach(
      await createRuntime({ store: runtime.store, machines: lifecycles }),
    );
    expect(reopened.validation).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('reports a codon whose run does not exist, and a damaged stored run, and leaves the damaged one out', async () => {
    const { store, repo, head } = await setUp();
    const rt = await createRuntime({ store, machines: lifecycles, clock: new ManualClock() });
    await rt.start('codon', {
      id: 'ghost/x/1',
      input: {
        runId: 'ghost',
        codonId: 'x',
        startedAt: 0,
        workTree: repo.dir,
        agent: { command: ['claude'], logPath: 'x.log' },
      },
    });
    const good = (await store.load('run-1'))!;
    await store.commit([
      {
        run: { ...good, runId: 'broken', snapshot: { value: 'running', context: { runId: 'broken' } } },
        expectedSeq: undefined,
      },
    ]);

    const manager = await codonLifecycle().attach(rt);
    const validation = manager.validation!;
    expect(validation.valid).toBe(false);
    expect(validation.errors.map((e) => [e.type, e.runId])).toEqual([
      ['corrupted_data', 'broken'],
      ['missing_run', 'ghost'],
      ['missing_checkpoint', 'run-1'],
    ]);
    expect(validation.errors[0]!.message).toMatch(/stored codon-run run 'broken' is damaged: context\.runFolder/);
    expect(manager.getState().runs.map((r) => r.runId)).toEqual(['run-1']);
    expect(head).toMatch(/^[0-9a-f]{40}$/);
  });
});
