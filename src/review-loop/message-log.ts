/**
 * The bridge between the two agents: a message log both write to and each reads from its own
 * cursor. agentpair's DrainNew hands an agent every message ever addressed to it, on every
 * iteration; here each agent has a durable cursor, so a message is delivered until it is
 * acknowledged and never after (acknowledge after the agent has used it: at-least-once across a crash).
 * Messages carry ids, and a message whose id is already in the log is not appended again, so a
 * resumed runner can re-send what it may have sent before the crash.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { systemClock, type Clock } from '../actor-contract/clock.js';
import { writeFileAtomic } from '../stores/atomic-file.js';
import { JsonLinesWriter, readJsonLines, type LineProblem } from './json-lines.js';
import { StatewrightError } from '../errors.js';

export const BROADCAST = '*';
export const MESSAGE_LOG_FILE = 'bridge.jsonl';
export const CURSORS_FILE = 'bridge-cursors.json';

export const bridgeMessageSchema = z
  .object({
    id: z.string().min(1),
    from: z.string().min(1),
    /** An agent, or `*` for every agent but the sender. */
    to: z.string().min(1),
    type: z.enum(['task', 'result', 'review', 'signal', 'note']),
    content: z.string(),
    iteration: z.number().int().min(0).optional(),
    /** ms since the epoch. */
    at: z.number(),
  })
  .strict();
export type BridgeMessage = z.infer<typeof bridgeMessageSchema>;
export type NewMessage = Omit<BridgeMessage, 'id' | 'at'> & { id?: string };

const cursorsSchema = z.record(z.string(), z.number().int().min(0));

/** An acknowledgement the log cannot honour (a cursor beyond the log or behind the agent's own). */
export class CursorError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'CursorError';
}

export interface PendingMessages {
  readonly messages: BridgeMessage[];
  /** Acknowledge with this to mark these messages (and nothing after them) delivered. */
  readonly cursor: number;
}

export class MessageLog {
  readonly #messages: BridgeMessage[];
  /** Every id in the log or being appended: a second send of one is not appended. */
  readonly #byId: Map<string, BridgeMessage>;
  readonly #cursors: Map<string, number>;
  #cursorWrite: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly dir: string,
    private readonly writer: JsonLinesWriter,
    private readonly clock: Clock,
    messages: BridgeMessage[],
    cursors: Map<string, number>,
    /** What was wrong with the files when they were opened: torn or corrupt lines, a damaged cursor file. */
    readonly problems: readonly LineProblem[],
  ) {
    this.#messages = messages;
    this.#byId = new Map(messages.map((m) => [m.id, m]));
    this.#cursors = cursors;
  }

  /** Opens (or creates) the log in `dir`, reporting damage in `problems`. */
  static async open(dir: string, options: { clock?: Clock } = {}): Promise<MessageLog> {
    const path = join(dir, MESSAGE_LOG_FILE);
    const read = await readJsonLines(path, bridgeMessageSchema);
    const problems: LineProblem[] = [...read.problems];
    // A crash may have appended a message twice around a retry: keep the first.
    const seen = new Set<string>();
    const messages = read.records.filter((m) => !seen.has(m.id) && seen.add(m.id));
    const cursors = await readCursors(join(dir, CURSORS_FILE), messages.length, problems);
    const writer = await JsonLinesWriter.open(path, read.tornTail ? read.completeLength : undefined);
    return new MessageLog(dir, writer, options.clock ?? systemClock, messages, cursors, problems);
  }

  /** Every message, in order. */
  get messages(): readonly BridgeMessage[] {
    return this.#messages;
  }

  /** Appends a message; returns false (and appends nothing) when its id is already in the log. */
  async send(message: NewMessage): Promise<{ delivered: boolean; message: BridgeMessage }> {
    const id = message.id ?? randomUUID();
    const existing = this.#byId.get(id);
    if (existing) return { delivered: false, message: existing };
    const full = bridgeMessageSchema.parse({ ...message, id, at: this.clock.now() });
    this.#byId.set(id, full);
    try {
      await this.writer.append(full);
    } catch (error) {
      this.#byId.delete(id);
      throw error;
    }
    // Appends complete in call order, so messages join the list in the order they are on disk.
    this.#messages.push(full);
    return { delivered: true, message: full };
  }

  /** Messages for `agent` after its cursor: addressed to it or broadcast by another agent. */
  pending(agent: string): PendingMessages {
    const from = this.#cursors.get(agent) ?? 0;
    const messages = this.#messages
      .slice(from)
      .filter((m) => m.from !== agent && (m.to === agent || m.to === BROADCAST));
    return { messages, cursor: this.#messages.length };
  }

  /** Marks everything before `cursor` delivered to `agent`, durably. */
  async ack(agent: string, cursor: number): Promise<void> {
    const current = this.#cursors.get(agent) ?? 0;
    if (!Number.isInteger(cursor) || cursor > this.#messages.length || cursor < current) {
      throw new CursorError(
        `Cannot move ${agent}'s cursor to ${cursor}: it is at ${current} and the log has ${this.#messages.length} messages. Acknowledge with the cursor pending() returned.`,
      );
    }
    this.#cursors.set(agent, cursor);
    const snapshot = JSON.stringify(Object.fromEntries(this.#cursors), null, 2);
    const write = this.#cursorWrite.then(() =>
      writeFileAtomic(join(this.dir, CURSORS_FILE), `${snapshot}\n`, { backup: join(this.dir, `${CURSORS_FILE}.bak`) }),
    );
    this.#cursorWrite = write.catch(() => {});
    await write;
  }

  /** The seed's drain: the pending messages, acknowledged at once. */
  async drain(agent: string): Promise<BridgeMessage[]> {
    const { messages, cursor } = this.pending(agent);
    await this.ack(agent, cursor);
    return messages;
  }

  /** Where `agent`'s cursor stands. */
  cursor(agent: string): number {
    return this.#cursors.get(agent) ?? 0;
  }

  async close(): Promise<void> {
    await this.#cursorWrite;
    await this.writer.close();
  }
}

/** The cursors file, else its backup, else none (every message delivered again); damage goes to `problems`. */
async function readCursors(path: string, length: number, problems: LineProblem[]): Promise<Map<string, number>> {
  for (const candidate of [path, `${path}.bak`]) {
    let text: string;
    try {
      text = await readFile(candidate, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const checked = (() => {
      try {
        return cursorsSchema.safeParse(JSON.parse(text));
      } catch (error) {
        return { success: false as const, error: new Error(`not valid JSON (${(error as Error).message})`) };
      }
    })();
    if (!checked.success) {
      problems.push({ path: candidate, line: 1, reason: `cursors unreadable: ${checked.error.message}` });
      continue;
    }
    const beyond = Object.entries(checked.data).filter(([, at]) => at > length);
    if (beyond.length) {
      problems.push({
        path: candidate,
        line: 1,
        reason: `cursors beyond the ${length} messages in the log (${beyond.map(([a, at]) => `${a}: ${at}`).join(', ')}); the log lost messages`,
      });
      continue;
    }
    return new Map(Object.entries(checked.data));
  }
  return new Map();
}
