/**
 * An agent's output read as a whole, line by line: what one line means depends on the lines
 * before it.
 *
 * - One message per id. Claude Code writes each content block of a message as its own line; the
 *   lines share `message.id` and repeat the message's usage. The first line of an id is reported,
 *   the rest are not, so every count and running cost sees each message (and its usage) once.
 * - The first result decides. A later result line (the Agent SDK's spurious
 *   `error_during_execution` after a success) is not reported: it is returned as a warning.
 * - One denial per tool call: a `system/permission_denied` line is reported once per `tool_use_id`.
 * - A Codex result is completed from earlier lines: its text is the last agent message, its
 *   session the thread id. Where the agent reports no cost, the cost is its usage at `pricing`.
 *
 * The reader keeps this state in memory only. It needs no other durability: the agent actor reads
 * a process's log from where that process's output starts, also when it adopts the process after a
 * restart, so a new reader passes the same lines and rebuilds the same state before it reaches a
 * line it has not reported yet.
 */
import { costAtPricing, tokensOfUsage, type AgentPricing } from '../../machines/agent-pricing.js';
import { parseStreamJsonLine, type StreamReport } from './stream-json.js';

type ResultReport = Extract<StreamReport, { type: 'agent.result' }>;

/** What one line comes to: at most one report, and a problem or notice to log. */
export interface ReadLine {
  report?: StreamReport;
  warning?: string;
}

const describe = (result: ResultReport) =>
  `${result.isError ? 'an error' : 'a success'}${result.costUsd === undefined ? '' : ` costing ${result.costUsd} USD`}`;

export class AgentOutputReader {
  readonly #pricing: AgentPricing | undefined;
  readonly #messageIds = new Set<string>();
  readonly #deniedToolUses = new Set<string>();
  #sessionId: string | undefined;
  #lastText: string | undefined;
  #result: ResultReport | undefined;

  constructor(pricing?: AgentPricing) {
    this.#pricing = pricing;
  }

  read(line: string): ReadLine {
    const parsed = parseStreamJsonLine(line);
    if (parsed.kind === 'invalid') return { warning: `agent log line ignored: ${parsed.problem}` };
    if (parsed.kind === 'other') return {};
    const report = parsed.report;
    switch (report.type) {
      case 'agent.session':
        this.#sessionId ??= report.sessionId;
        return { report };
      case 'agent.assistant':
        if (report.messageId !== undefined) {
          if (this.#messageIds.has(report.messageId)) return {};
          this.#messageIds.add(report.messageId);
        }
        if (report.text !== '') this.#lastText = report.text;
        return { report };
      case 'agent.permission_denied':
        if (this.#deniedToolUses.has(report.toolUseId)) return {};
        this.#deniedToolUses.add(report.toolUseId);
        return { report };
      case 'agent.result':
        return this.#readResult(report);
    }
  }

  #readResult(report: ResultReport): ReadLine {
    if (this.#result) {
      return {
        warning: `a later result (${describe(report)}) is ignored: the first result (${describe(this.#result)}) decides`,
      };
    }
    const costUsd =
      report.costUsd ??
      (this.#pricing && report.usage ? costAtPricing(tokensOfUsage(report.usage), this.#pricing) : undefined);
    // Codex's turn.completed carries no text: its answer is the last agent message.
    const result = report.result ?? (report.isError ? undefined : this.#lastText);
    const sessionId = report.sessionId ?? this.#sessionId;
    this.#result = {
      ...report,
      ...(costUsd !== undefined && { costUsd }),
      ...(result !== undefined && { result }),
      ...(sessionId !== undefined && { sessionId }),
    };
    return { report: this.#result };
  }
}
