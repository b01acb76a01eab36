/**
 * What a Claude Code command line needs for statewright to follow its costs as they happen:
 * `--include-partial-messages`, without which Claude's stream-json gives each message's usage as
 * of its start (one output token) and the real count only in the final result, too late for a
 * budget (see src/actors/final-usage.ts). Added by the lifecycles that run Claude.
 */

export const PARTIAL_MESSAGES_FLAG = '--include-partial-messages';

/**
 * The command with `--include-partial-messages` added when it is a Claude Code stream-json
 * command line (it asks for `--output-format stream-json`) that lacks it; any other command (a
 * Codex one, a stand-in script) as it is, since the flag would mean nothing or something else there.
 */
export function withPartialMessages(command: readonly string[]): string[] {
  const asksStreamJson = command.some(
    (arg, i) =>
      arg === '--output-format=stream-json' || (arg === '--output-format' && command[i + 1] === 'stream-json'),
  );
  if (!asksStreamJson || command.includes(PARTIAL_MESSAGES_FLAG)) return [...command];
  return [...command, PARTIAL_MESSAGES_FLAG];
}
