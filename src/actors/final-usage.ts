/**
 * Claude's assistant messages held back until their final usage is known. Claude writes each
 * content block of a message as an `assistant` line with the usage of `message_start`, where
 * `output_tokens` is 1; the real count comes in the message's `message_delta`, which it passes on
 * only with `--include-partial-messages` (as a `stream_event` line, after the message's blocks).
 * A running cost from the assistant lines alone reads a few percent of the truth, and a budget is
 * not enforced until the result (issue 32: $0.00083 read for a message that cost $0.0608).
 *
 * So a message whose `message_start` was seen is reported once its `message_delta` has come, with
 * that usage over its start usage and the text of all its blocks: one report per message, as
 * before, but with the count a budget needs, before Claude's next model call. A message whose
 * delta never comes (a stream cut, the process killed) is released with what it had, before the
 * result, or when the output ends. Without stream events (an older command line, a stand-in, a
 * synthetic message) nothing is held: each message is reported on its first line, as before.
 */
import type { AgentUsage } from '../../machines/agent-pricing.js';
import type { MessageUsage } from './claude-lines.js';
import type { StreamReport } from './stream-json.js';

type AssistantReport = Extract<StreamReport, { type: 'agent.assistant' }>;

interface Streaming {
  startUsage: AgentUsage;
  /** The report built from the message's assistant lines, once one has come. */
  report?: AssistantReport;
}

export class FinalUsage {
  /** Streamed messages not yet reported, by id, in the order they started. */
  readonly #streaming = new Map<string, Streaming>();

  /**
   * A `stream_event` usage: a start marks the message as streamed; a final delta releases it with
   * its final usage. Returns the report to make, if any. `reported`: whether the id was reported.
   */
  usage({ messageId, usage, final }: MessageUsage, reported: boolean): AssistantReport | undefined {
    if (reported) return undefined;
    const known = this.#streaming.get(messageId);
    if (!final) {
      if (!known) this.#streaming.set(messageId, { startUsage: usage });
      return undefined;
    }
    this.#streaming.delete(messageId);
    // A message with no block of its own (no assistant line) still cost its tokens.
    const report = known?.report ?? { type: 'agent.assistant', messageId, text: '' };
    return { ...report, usage: { ...known?.startUsage, ...report.usage, ...usage } };
  }

  /**
   * An assistant line of a streamed message: held (its text joined to the message's), and true
   * returned; false when the message is not streamed, so the caller reports it now.
   */
  hold(report: AssistantReport): boolean {
    const streaming = report.messageId === undefined ? undefined : this.#streaming.get(report.messageId);
    if (!streaming) return false;
    const held = streaming.report;
    streaming.report = held
      ? { ...held, text: held.text + report.text, usage: { ...held.usage, ...report.usage } }
      : { ...report, usage: { ...streaming.startUsage, ...report.usage } };
    return true;
  }

  /** Every held message, with the usage it has, oldest first; nothing is held afterwards. */
  release(): AssistantReport[] {
    const held = [...this.#streaming.values()].flatMap((s) => (s.report ? [s.report] : []));
    this.#streaming.clear();
    return held;
  }
}
