import { z } from 'zod';
import { agentPricingSchema } from '../../machines/agent-pricing.js';
import { DEFAULT_MAX_ITERATIONS, type ReviewLoopInput } from '../../machines/review-loop/index.js';
import { AGENT_NAMES, REVIEW_MODES, type AgentName } from './consensus.js';
import { DEFAULT_DONE_SIGNAL, SignalConfigError, validateDoneSignal } from './signals.js';
import { StatewrightError } from '../errors.js';

export const agentSettingsSchema = z
  .object({
    /** Whose verdict this agent gives in the consensus modes. */
    name: z.enum(AGENT_NAMES).optional(),
    /** The program and its arguments; it reads the prompt on stdin and speaks stream-json on stdout. */
    command: z.array(z.string().min(1)).min(1),
    cwd: z.string().min(1).optional(),
    env: z.record(z.string(), z.string()).optional(),
    /**
     * Arguments that continue the agent's own session, appended from its second run on, with
     * `{session}` replaced by the session id it reported: `['--resume', '{session}']` for Claude Code,
     * `['resume', '{session}']` after `codex exec --json`. When they start with the command's own
     * program they are the whole command instead (`codex exec --json resume {session}`).
     * Without them each run starts a fresh conversation.
     */
    resumeArgs: z.array(z.string().min(1)).min(1).optional(),
    /** USD per million tokens: the cost of a result that reports none (a Codex turn). */
    pricing: agentPricingSchema.optional(),
  })
  .strict();

export const loopSettingsSchema = z
  .object({
    prompt: z.string().min(1),
    maxIterations: z.number().int().min(1).default(DEFAULT_MAX_ITERATIONS),
    reviewMode: z.enum(REVIEW_MODES).default('claudex'),
    doneSignal: z.string().default(DEFAULT_DONE_SIGNAL),
    primary: agentSettingsSchema,
    /** Absent: single-agent mode, the primary works alone until it signals DONE. */
    reviewer: agentSettingsSchema.optional(),
  })
  .strict();

export type LoopSettingsInput = z.input<typeof loopSettingsSchema>;
export type AgentSettings = z.output<typeof agentSettingsSchema> & { readonly name: AgentName };

/** A review loop's configuration with its defaults filled in: what a run is started with and its manifest keeps. */
export interface LoopSettings {
  readonly prompt: string;
  readonly maxIterations: number;
  readonly reviewMode: (typeof REVIEW_MODES)[number];
  readonly doneSignal: string;
  readonly primary: AgentSettings;
  readonly reviewer?: AgentSettings;
}

/** A configuration that cannot run; the message names each field and what is wrong with it. */
export class LoopConfigError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'LoopConfigError';
  constructor(readonly problems: ReadonlyArray<{ field: string; problem: string }>) {
    super(`Invalid review loop configuration: ${problems.map((p) => `${p.field}: ${p.problem}`).join('; ')}`);
  }
}

const other = (name: AgentName): AgentName => (name === 'claude' ? 'codex' : 'claude');

/** Validates a configuration and fills in agentpair's defaults: primary codex, reviewer the other agent, claudex, DONE, 20 iterations. */
export function resolveLoopSettings(input: LoopSettingsInput): LoopSettings {
  const parsed = loopSettingsSchema.safeParse(input);
  if (!parsed.success) {
    throw new LoopConfigError(
      parsed.error.issues.map((i) => ({ field: i.path.map(String).join('.') || '(settings)', problem: i.message })),
    );
  }
  const { reviewer, primary, ...rest } = parsed.data;
  try {
    validateDoneSignal(rest.doneSignal);
  } catch (error) {
    if (error instanceof SignalConfigError)
      throw new LoopConfigError([{ field: 'doneSignal', problem: error.message }]);
    throw error;
  }
  const primaryName = primary.name ?? (reviewer?.name ? other(reviewer.name) : 'codex');
  const reviewerName = reviewer?.name ?? other(primaryName);
  if (reviewer && reviewerName === primaryName) {
    throw new LoopConfigError([
      {
        field: 'reviewer.name',
        problem: `the primary and the reviewer are both '${primaryName}'; name the reviewer '${other(primaryName)}' so each verdict is attributed`,
      },
    ]);
  }
  return {
    ...rest,
    primary: { ...primary, name: primaryName },
    ...(reviewer && { reviewer: { ...reviewer, name: reviewerName } }),
  };
}

/** The machine's input for these settings. */
export function machineInput(settings: LoopSettings): ReviewLoopInput {
  return { maxIterations: settings.maxIterations, mode: settings.reviewer ? 'paired' : 'single' };
}
