/**
 * What a recorded agent transcript says about itself, read straight from its lines: the expected
 * values of the tests that run the lifecycles on it. Written from the formats' documentation
 * (Claude Code stream-json, Codex exec JSON), apart from the code under test.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The real transcripts: `../shared/agent-transcripts/` beside the repository, as in CI, or where
 * STATEWRIGHT_AGENT_TRANSCRIPTS says (a worktree that does not sit beside `shared/`).
 */
export const SHARED_TRANSCRIPTS =
  process.env.STATEWRIGHT_AGENT_TRANSCRIPTS ??
  fileURLToPath(new URL('../../../shared/agent-transcripts/', import.meta.url));
/** The stand-in transcripts of cases the real ones lack (error_max_turns, denials, interrupt, crash). */
export const OWN_TRANSCRIPTS = fileURLToPath(new URL('../fixtures/agent-output/', import.meta.url));

export function transcriptFiles(dir: string): string[] {
  if (!existsSync(dir)) {
    throw new Error(
      `no agent transcripts at ${dir}: clone the repository beside shared/ (as CI does), or set STATEWRIGHT_AGENT_TRANSCRIPTS to the folder`,
    );
  }
  return readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .map((name) => join(dir, name));
}

/** USD per million tokens (Claude Sonnet's list prices): the running estimate, and the cost of a Codex turn, which reports none. */
export const TEST_PRICING = { input: 3, output: 15, cacheCreation: 3.75, cacheRead: 0.3 };

export interface TranscriptFacts {
  sessionId: string;
  /** Distinct assistant messages: Claude's message ids (a line without one counts alone), Codex's agent_message items. */
  messages: number;
  /** Those the model wrote: Claude's own (`"model":"<synthetic>"`, an API error) left out. A codon counts these. */
  modelMessages: number;
  /** The tokens the messages' usages add up to, each message's once. */
  messageTokens: number;
  result?: {
    isError: boolean;
    costUsd: number;
    tokens: { input: number; output: number; cacheRead: number; cacheCreation: number };
    totalTokens: number;
    /** The final text, where the result has one. */
    text?: string;
  };
}

type Line = Record<string, any>;

function lines(path: string): Line[] {
  const parsed: Line[] = [];
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    try {
      parsed.push(JSON.parse(text));
    } catch {
      // A line cut short by a crash, or the empty tail: not part of what the agent said.
    }
  }
  return parsed;
}

export function transcriptFacts(path: string): TranscriptFacts {
  const all = lines(path);
  return all.some((line) => line.type === 'thread.started') ? codexFacts(all) : claudeFacts(all);
}

function claudeFacts(all: Line[]): TranscriptFacts {
  const init = all.find((line) => line.type === 'system' && line.subtype === 'init');
  if (!init) throw new Error('the transcript has no system/init line: it names no session');
  const ids = new Set<string>();
  let anonymous = 0;
  let synthetic = 0;
  let messageTokens = 0;
  for (const line of all.filter((l) => l.type === 'assistant')) {
    const id = line.message?.id;
    if (id && ids.has(id)) continue;
    if (id) ids.add(id);
    else anonymous++;
    if (line.message?.model === '<synthetic>') synthetic++;
    const u = line.message?.usage ?? {};
    messageTokens +=
      (u.input_tokens ?? 0) +
      (u.output_tokens ?? 0) +
      (u.cache_read_input_tokens ?? 0) +
      (u.cache_creation_input_tokens ?? 0);
  }
  const first = all.find((line) => line.type === 'result');
  const u = first?.usage ?? {};
  const tokens = {
    input: u.input_tokens ?? 0,
    output: u.output_tokens ?? 0,
    cacheRead: u.cache_read_input_tokens ?? 0,
    cacheCreation: u.cache_creation_input_tokens ?? 0,
  };
  return {
    sessionId: init.session_id,
    messages: ids.size + anonymous,
    modelMessages: ids.size + anonymous - synthetic,
    messageTokens,
    ...(first && {
      result: {
        isError: first.is_error === true || String(first.subtype).startsWith('error'),
        costUsd: first.total_cost_usd,
        tokens,
        totalTokens: tokens.input + tokens.output + tokens.cacheRead + tokens.cacheCreation,
        ...(typeof first.result === 'string' && { text: first.result }),
      },
    }),
  };
}

function codexFacts(all: Line[]): TranscriptFacts {
  const agentMessages = all.filter((line) => line.type === 'item.completed' && line.item?.type === 'agent_message');
  const turn = all.find((line) => line.type === 'turn.completed');
  const u = turn?.usage ?? {};
  // Codex counts cached input inside input_tokens.
  const tokens = {
    input: u.input_tokens - u.cached_input_tokens,
    output: u.output_tokens,
    cacheRead: u.cached_input_tokens,
    cacheCreation: 0,
  };
  const p = TEST_PRICING;
  return {
    sessionId: all.find((line) => line.type === 'thread.started')!.thread_id,
    messages: agentMessages.length,
    modelMessages: agentMessages.length,
    // Codex's messages carry no usage: its tokens are the turn's.
    messageTokens: 0,
    ...(turn && {
      result: {
        isError: false,
        costUsd:
          (tokens.input * p.input +
            tokens.output * p.output +
            tokens.cacheRead * p.cacheRead +
            tokens.cacheCreation * p.cacheCreation) /
          1_000_000,
        tokens,
        totalTokens: u.input_tokens + u.output_tokens,
        ...(agentMessages.length > 0 && { text: agentMessages.at(-1)!.item.text }),
      },
    }),
  };
}
