/**
 * The loop's transcript: one JSON line per thing that happened (the run started, the state
 * changed, an iteration began, an agent was executed, each of its messages and what it returned, the signal read from
 * it, an error, the end), each stamped by the clock. The runtime's audit trail records events; the
 * transcript records what a person reading the loop wants to see, agent output included.
 */
import { z } from 'zod';
import { agentUsageSchema } from '../../machines/agent-pricing.js';
import { reviewLoop } from '../../machines/review-loop/index.js';
import { systemClock, type Clock } from '../actor-contract/clock.js';
import { JsonLinesWriter, readJsonLines, type LineProblem } from './json-lines.js';
import { StatewrightError } from '../errors.js';

const state = z.enum(reviewLoop.states as unknown as [string, ...string[]]);
const role = z.enum(['primary', 'reviewer']);
const iteration = z.number().int().min(0);

const events = [
  z
    .object({
      type: z.literal('start'),
      runId: z.string().min(1),
      prompt: z.string(),
      mode: z.enum(['paired', 'single']),
      maxIterations: z.number().int().min(1),
    })
    .strict(),
  z.object({ type: z.literal('state'), from: state, to: state, event: z.string().min(1) }).strict(),
  z.object({ type: z.literal('iteration'), iteration }).strict(),
  z
    .object({
      type: z.literal('execution'),
      agent: role,
      iteration,
      command: z.array(z.string()).min(1),
      pid: z.number().int().positive().optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('assistant'),
      agent: role,
      iteration,
      text: z.string(),
      inputTokens: z.number().int().min(0).optional(),
      outputTokens: z.number().int().min(0).optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('result'),
      agent: role,
      iteration,
      output: z.string(),
      isError: z.boolean(),
      /** This run's own cost and tokens (a resumed Codex thread's earlier turns taken off). */
      costUsd: z.number().min(0).optional(),
      totalTokens: z.number().int().min(0).optional(),
      sessionId: z.string().optional(),
      /** Codex: the thread's usage in all after this run, taken off the next run's that resumes it. */
      threadUsage: agentUsageSchema.optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('signal'),
      agent: role,
      iteration,
      signal: z.enum(['done', 'pass', 'fail', 'changes', 'none']),
      explicit: z.boolean(),
      reason: z.string(),
    })
    .strict(),
  z
    .object({
      type: z.literal('error'),
      error: z.string().min(1),
      agent: role.optional(),
      iteration: iteration.optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('end'),
      state: z.enum(['complete', 'failed']),
      iterations: iteration,
      reason: z.string().optional(),
      error: z.string().optional(),
    })
    .strict(),
] as const;

export const transcriptEventSchema = z.discriminatedUnion('type', events);

export type TranscriptEvent = z.infer<typeof transcriptEventSchema>;
export type TranscriptEntry = TranscriptEvent & { at: string };

const stamped = events.map((event) => event.extend({ at: z.iso.datetime() }));
const entrySchema = z.discriminatedUnion(
  'type',
  stamped as unknown as typeof events,
) as unknown as z.ZodType<TranscriptEntry>;

export const TRANSCRIPT_FILE = 'transcript.jsonl';

/** An event the transcript's format does not allow; names the fields. Nothing is written. */
export class TranscriptError extends StatewrightError {
  readonly kind = 'invalid';
  override readonly name = 'TranscriptError';
}

export class TranscriptWriter {
  private constructor(
    private readonly writer: JsonLinesWriter,
    private readonly clock: Clock,
    /** Damage found in an existing transcript when it was opened. */
    readonly problems: readonly LineProblem[],
  ) {}

  /** Opens a transcript for appending (a resumed run continues its own), cutting off a torn last line. */
  static async open(path: string, options: { clock?: Clock } = {}): Promise<TranscriptWriter> {
    const existing = await readJsonLines(path, entrySchema);
    const writer = await JsonLinesWriter.open(path, existing.tornTail ? existing.completeLength : undefined);
    return new TranscriptWriter(writer, options.clock ?? systemClock, existing.problems);
  }

  /** Appends one event stamped with the clock's time; resolves once it is on disk. */
  async write(event: TranscriptEvent): Promise<TranscriptEntry> {
    const checked = transcriptEventSchema.safeParse(event);
    if (!checked.success) {
      throw new TranscriptError(
        `Not a transcript event: ${checked.error.issues.map((i) => `${i.path.join('.') || '(event)'}: ${i.message}`).join('; ')}`,
      );
    }
    const entry = { at: new Date(this.clock.now()).toISOString(), ...checked.data } as TranscriptEntry;
    await this.writer.append(entry);
    return entry;
  }

  close(): Promise<void> {
    return this.writer.close();
  }
}

/** Every entry of a transcript, with any damaged lines reported (path, line, reason). */
export async function readTranscript(path: string): Promise<{ entries: TranscriptEntry[]; problems: LineProblem[] }> {
  const { records, problems } = await readJsonLines(path, entrySchema);
  return { entries: records, problems };
}
