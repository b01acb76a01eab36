import { UsageError } from './usage-error.js';

/**
 * Splits a command line given as one option value (`--primary "claude -p --verbose"`) into the
 * program and its arguments, as a POSIX shell would for words, single and double quotes and
 * backslashes. Nothing is expanded: no variables, globs or pipes (no shell runs the agent).
 */
export function splitCommand(option: string, line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new UsageError(`${option} has an unclosed ${quote} quote: ${line}`);
  if (inWord) words.push(word);
  if (words.length === 0)
    throw new UsageError(
      `${option} is empty: give the agent's program and its arguments, e.g. ${option} "claude -p --output-format stream-json --verbose"`,
    );
  return words;
}
