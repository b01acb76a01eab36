/**
 * Every lifecycle that reads agent output (codon, session, review loop) run on every transcript:
 * the real ones in ../shared/agent-transcripts/ and the stand-ins of cases they lack
 * (test/fixtures/agent-output/). A replay stand-in (examples/agents/replay.sh) makes a real process
 * speak each one; each lifecycle must report the transcript's own session id, message count,
 * tokens, cost and final status, as read from its lines by test/support/transcript-facts.ts.
 */
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getCodonTokens } from '../../machines/codon/index.js';
import { lifecycles } from '../../machines/index.js';
import { createAgentProcess } from '../../src/actors/agent-process.js';
import { codonLifecycle } from '../../src/codon/codon-lifecycle.js';
import { reviewLoopLifecycle } from '../../src/review-loop/review-loops.js';
import { readTranscript } from '../../src/review-loop/transcript.js';
import { createRuntime, type RunSnapshot } from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';
import { tempDir } from '../stores/temp-dir.js';
import { isolateGit, makeRepo } from '../support/git-repo.js';
import { startDaemon } from '../support/session-daemon.js';
import {
  OWN_TRANSCRIPTS,
  SHARED_TRANSCRIPTS,
  TEST_PRICING,
  transcriptFacts,
  transcriptFiles,
} from '../support/transcript-facts.js';

const REPLAY = fileURLToPath(new URL('../../examples/agents/replay.sh', import.meta.url));
/** How each stand-in transcript's process ends; the others exit 0. */
const ENDINGS: Record<string, string> = {
  'claude-interrupted.jsonl': 'interrupt',
  'claude-cut-by-crash.jsonl': 'crash',
};

beforeAll(isolateGit);
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const cases = [...transcriptFiles(SHARED_TRANSCRIPTS), ...transcriptFiles(OWN_TRANSCRIPTS)].map((path) => {
  const name = basename(path);
  return { name, path, facts: transcriptFacts(path), env: { REPLAY_ENDING: ENDINGS[name] ?? 'exit' } };
});

/** Ends well: a result, not an error, and a process that exited 0. */
const succeeds = (c: (typeof cases)[number]) =>
  c.facts.result !== undefined && !c.facts.result.isError && !ENDINGS[c.name];

describe.each(cases)('$name', (c) => {
  const { facts } = c;

  it('a codon reports its session, its messages once per id, its cost and tokens; a budget just above its cost does not stop it', async () => {
    const repo = await makeRepo();
    cleanups.push(repo.remove);
    const { actors } = codonLifecycle({ sentinels: () => [], agent: createAgentProcess({ pollMs: 20 }) });
    const runtime = await createRuntime({ store: memoryStore(), machines: lifecycles, actors });
    cleanups.push(() => runtime.close());
    const cost = facts.result?.costUsd ?? 0;
    await runtime.start('codon', {
      id: 'codon-1',
      input: {
        runId: 'run-1',
        codonId: 'replay',
        startedAt: Date.now(),
        workTree: repo.dir,
        agent: {
          command: [REPLAY, c.path],
          prompt: 'Replay.',
          logPath: join(repo.dir, '.git', 'statewright', 'replay.log'),
          env: c.env,
          graceMs: 500,
        },
        pricing: TEST_PRICING,
        ...(cost > 0 && { budgetUsd: cost * 1.2 }),
      },
    });
    const done = await new Promise<RunSnapshot>((resolve) => {
      const stop = runtime.subscribe((step) => step.snapshot.status === 'done' && (stop(), resolve(step.snapshot)));
    });
    const codon = done.context.codon;
    expect(codon).toMatchObject({
      status: succeeds(c) ? 'completed' : 'failed',
      claudeSessionId: facts.sessionId,
      assistantMessageCount: facts.modelMessages,
    });
    expect(codon.budgetExceeded).toBeFalsy();
    // Without a result, the tokens are the messages' own, each message's once.
    if (!facts.result)
      return expect(Object.values(getCodonTokens(codon)).reduce((a, b) => a + b, 0)).toBe(facts.messageTokens);
    const tokens = {
      inputTokens: facts.result.tokens.input,
      outputTokens: facts.result.tokens.output,
      cacheReadTokens: facts.result.tokens.cacheRead,
      cacheCreationTokens: facts.result.tokens.cacheCreation,
    };
    expect(codon.status === 'completed' ? codon.finalTokens : codon.partialTokens).toEqual(tokens);
    expect(codon.status === 'completed' ? codon.finalCost : codon.partialCost).toBeCloseTo(facts.result.costUsd, 12);
  });

  it('a session reports its session, its messages once per id, its cost and tokens', async () => {
    const dir = await tempDir('transcripts');
    cleanups.push(() => dir.remove());
    const daemon = await startDaemon({
      store: memoryStore(),
      logDir: join(dir.path, 'sessions'),
      agent: createAgentProcess({ pollMs: 20 }),
      activity: false,
    });
    cleanups.push(async () => {
      await daemon.close({ timeoutMs: 2_000 });
      await daemon.runtime.close();
    });
    const ended = new Promise<void>((resolve) => {
      const stop = daemon.onStatusChanged(
        (change) => (change.new_status === 'completed' || change.new_status === 'failed') && (stop(), resolve()),
      );
    });
    await daemon.launch({
      id: 's1',
      query: 'Replay.',
      config: { command: [REPLAY, c.path], env: c.env, pricing: TEST_PRICING },
    });
    await ended;
    const session = await daemon.get('s1');
    const assistants = (await daemon.runtime.history('s1')).filter((record) => record.event.type === 'agent.assistant');
    expect([session.status, session.claude_session_id, assistants.length]).toEqual([
      succeeds(c) ? 'completed' : 'failed',
      facts.sessionId,
      facts.messages,
    ]);
    // Without a result, the tokens are the messages' own, each message's once.
    if (!facts.result)
      return expect(Object.values(session.tokens).reduce((a, b) => a + b, 0)).toBe(facts.messageTokens);
    const { tokens } = facts.result;
    expect(session.tokens).toEqual({
      input: tokens.input,
      output: tokens.output,
      cache_read: tokens.cacheRead,
      cache_creation: tokens.cacheCreation,
    });
    expect(session.result).toMatchObject({ total_tokens: facts.result.totalTokens, is_error: facts.result.isError });
    expect(session.result!.cost_usd).toBeCloseTo(facts.result.costUsd, 12);
    if (session.status === 'completed')
      expect([session.cost_usd, session.total_tokens]).toEqual([session.result!.cost_usd, facts.result.totalTokens]);
  });

  it("a review loop's primary reports its session, its messages once per id, its result, cost and tokens", async () => {
    const dir = await tempDir('transcripts');
    cleanups.push(() => dir.remove());
    const wiring = reviewLoopLifecycle({ baseDir: dir.path, graceMs: 500 });
    const store = memoryStore();
    const runtime = await createRuntime({ store, machines: lifecycles, actors: wiring.actors, recover: false });
    const loops = await wiring.attach(runtime);
    cleanups.push(async () => {
      await loops.close();
      await runtime.close();
    });
    const run = await loops.start(
      {
        prompt: 'Replay.',
        maxIterations: 1,
        primary: { command: [REPLAY, c.path], env: c.env, pricing: TEST_PRICING },
      },
      { id: 'loop-1' },
    );
    const outcome = await run.finished;
    const { entries, problems } = await readTranscript(join(outcome.runDir, 'transcript.jsonl'));
    expect(problems).toEqual([]);
    const results = entries.filter((e) => e.type === 'result');
    expect(entries.filter((e) => e.type === 'assistant')).toHaveLength(facts.messages);
    expect((await runtime.getSnapshot('loop-1')).context.sessions).toEqual({ primary: facts.sessionId });
    // One iteration and no DONE: a primary that did its work fails the loop only by the iteration limit.
    expect(outcome.state).toBe('failed');
    if (succeeds(c)) expect(outcome.error ?? outcome.reason).toBe('max iterations reached');
    else
      expect(outcome.error).toMatch(
        /^primary (reported an error|was killed by SIG(INT|KILL) before reporting a result)/,
      );
    if (!facts.result) return expect(results).toEqual([]);
    expect(results).toEqual([
      expect.objectContaining({
        isError: facts.result.isError,
        totalTokens: facts.result.totalTokens,
        sessionId: facts.sessionId,
        output: facts.result.text ?? '',
      }),
    ]);
    expect((results[0] as { costUsd: number }).costUsd).toBeCloseTo(facts.result.costUsd, 12);
  });
});
