/**
 * An agent's output read as a whole, line by line: what one line means depends on the lines
 * before it.
 *
 * - One message per id. Claude Code writes each content block of a message as its own line; the
 *   lines share `message.id` and repeat the message's usage. The first line of an id is reported,
 *   the rest are not, so every count and running cost sees each message (and its usage) once.
 *   With `--include-partial-messages` a message is held until its final usage has come, then
 *   reported once with it and the text of all its blocks (final-usage.ts); the `stream_event`
 *   lines themselves are never messages. What is still held is released before the result, and
 *   by `finish` when the output ends.
 * - Texts are bounded (bounded-text.ts): a message's or a result's text longer than 32 KiB is
 *   reported as its start and end; the agent's log keeps the whole.
 * - The first result decides. A later result line (the Agent SDK's spurious
 *   `error_during_execution` after a success) is not reported: it is returned as a warning.
 * - One denial per tool call: a `system/permission_denied` line is reported once per `tool_use_id`.
 * - A Codex result is completed from earlier lines: its text is the last agent message, its
 *   session the thread id. Where the agent reports no cost, the cost is its usage at `pricing`.
 * - A resumed Codex thread's turn is this run's own: `turn.completed` counts the whole thread, so
 *   the thread's total before the run (`thread`, which the lifecycle kept from the run before) is
 *   taken off its usage and cost; `threadUsage` keeps the whole, for the run after this one.
 * - An agent's error line is not a result (Codex's "Reconnecting... 1/5": it carries on); it is
 *   logged, and the last one is `lastError`, the agent's own account of how it failed, for the
 *   exit's reason.
 *
 * The reader keeps this state in memory only. It needs no other durability: the agent actor reads
 * a process's log from where that process's output starts, also when it adopts the process after a
 * restart, so a new reader passes the same lines and rebuilds the same state before it reaches a
 * line it has not reported yet.
 */
import type { AgentThreadUsage } from '../../machines/agent-input.js';
import { costAtPricing, tokensOfUsage, type AgentPricing } from '../../machines/agent-pricing.js';
import { boundedText } from './bounded-text.js';
import { FinalUsage } from './final-usage.js';
import { parseStreamJsonLine, type StreamReport, type StreamUsage } from './stream-json.js';

type ResultReport = Extract<StreamReport, { type: 'agent.result' }>;
type AssistantReport = Extract<StreamReport, { type: 'agent.assistant' }>;

/** What one line comes to: at most one report, and a problem or notice to log. */
export interface ReadLine {
  report?: StreamReport;
  warning?: string;
  /** Messages held for their final usage that this line (a result) releases: reported before `report`. */
  released?: StreamReport[];
}

const describe = (result: ResultReport) =>
  `${result.isError ? 'an error' : 'a success'}${result.costUsd === undefined ? '' : ` costing ${result.costUsd} USD`}`;

export class AgentOutputReader {
  readonly #pricing: AgentPricing | undefined;
  readonly #messageIds = new Set<string>();
  readonly #deniedToolUses = new Set<string>();
  readonly #thread: AgentThreadUsage | undefined;
  readonly #finalUsage = new FinalUsage();
  #sessionId: string | undefined;
  #lastText: string | undefined;
  #lastError: string | undefined;
  #result: ResultReport | undefined;

  /** `thread`: the usage of the thread this run resumes, before the run (see the opening comment). */
  constructor(pricing?: AgentPricing, thread?: AgentThreadUsage) {
    this.#pricing = pricing;
    this.#thread = thread;
  }

  /** The text of the last error the agent wrote on stdout (a Codex `error` line or `turn.failed`), if any. */
  get lastError(): string | undefined {
    return this.#lastError;
  }

  read(line: string): ReadLine {
    const parsed = parseStreamJsonLine(line);
    if (parsed.kind === 'invalid') return { warning: `agent log line ignored: ${parsed.problem}` };
    if (parsed.kind === 'other') return {};
    if (parsed.kind === 'message-usage') {
      const { messageId } = parsed.usage;
      const message = this.#finalUsage.usage(parsed.usage, this.#messageIds.has(messageId));
      return message ? { report: this.#reported(message) } : {};
    }
    if (parsed.kind === 'agent-error') {
      this.#lastError = parsed.message;
      if (parsed.report) return this.#readReport(parsed.report);
      return { warning: `the agent reported an error, not a result (it may carry on): ${parsed.message}` };
    }
    return this.#readReport(parsed.report);
  }

  #readReport(report: StreamReport): ReadLine {
    switch (report.type) {
      case 'agent.session':
        this.#sessionId ??= report.sessionId;
        return { report };
      case 'agent.assistant':
        if (report.messageId !== undefined && this.#messageIds.has(report.messageId)) return {};
        if (this.#finalUsage.hold(report)) return {};
        return { report: this.#reported(report) };
      case 'agent.permission_denied':
        if (this.#deniedToolUses.has(report.toolUseId)) return {};
        this.#deniedToolUses.add(report.toolUseId);
        return { report };
      case 'agent.result': {
        const released = this.#finalUsage.release().map((message) => this.#reported(message));
        return { ...this.#readResult(report), ...(released.length > 0 && { released }) };
      }
      default:
        return { report };
    }
  }

  /** The messages still held for their final usage when the output ends, with the usage they have. */
  finish(): StreamReport[] {
    return this.#finalUsage.release().map((message) => this.#reported(message));
  }

  /** An assistant message as it is reported: its id is then known, its text the last one. */
  #reported(report: AssistantReport): AssistantReport {
    if (report.messageId !== undefined) this.#messageIds.add(report.messageId);
    const text = boundedText(report.text);
    if (text !== '') this.#lastText = text;
    return text === report.text ? report : { ...report, text };
  }

  #readResult(reported: ResultReport): ReadLine {
    if (this.#result) {
      return {
        warning: `a later result (${describe(reported)}) is ignored: the first result (${describe(this.#result)}) decides`,
      };
    }
    const sessionId = reported.sessionId ?? this.#sessionId;
    const { report, warning } = this.#ownUsage(reported, sessionId);
    const costUsd =
      report.costUsd ??
      (this.#pricing && report.usage ? costAtPricing(tokensOfUsage(report.usage), this.#pricing) : undefined);
    // Codex's turn.completed carries no text: its answer is the last agent message.
    const result =
      report.result === undefined ? (report.isError ? undefined : this.#lastText) : boundedText(report.result);
    this.#result = {
      ...report,
      ...(costUsd !== undefined && { costUsd }),
      ...(result !== undefined && { result }),
      ...(sessionId !== undefined && { sessionId }),
    };
    return { report: this.#result, ...(warning && { warning }) };
  }

  /** A resumed thread's result with the thread's usage before this run taken off (see the opening comment). */
  #ownUsage(report: ResultReport, sessionId: string | undefined): { report: ResultReport; warning?: string } {
    const whole = report.threadUsage;
    const before = this.#thread;
    if (!whole || !before || before.sessionId !== sessionId) return { report };
    const own = usageSince(whole, before.usage);
    if (!own) {
      return {
        report,
        warning: `the thread's usage (${JSON.stringify(whole)}) is below its total before this run (${JSON.stringify(before.usage)}): counted as this run's own`,
      };
    }
    return { report: { ...report, usage: own, totalTokens: sumOfTokens(own) } };
  }
}

const KINDS = ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const;

/** `whole` less `before`, kind by kind; undefined when a kind went down (not the same thread's total). */
function usageSince(whole: StreamUsage, before: StreamUsage): StreamUsage | undefined {
  const own: StreamUsage = {};
  for (const kind of KINDS) {
    const now = whole[kind] ?? 0;
    const then = before[kind] ?? 0;
    if (now < then) return undefined;
    if (whole[kind] !== undefined) own[kind] = now - then;
  }
  return own;
}

function sumOfTokens(usage: StreamUsage): number {
  const t = tokensOfUsage(usage);
  return t.inputTokens + t.outputTokens + t.cacheCreationTokens + t.cacheReadTokens;
}
