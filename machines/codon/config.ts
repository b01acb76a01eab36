/**
 * What a codon run is started with (`rt.start('codon', { input })`): which codon, where it works,
 * how to run its agent, its rig setup, pricing and limits. Validated once, at start.
 */
import { z } from 'zod';
import { parseInput } from '../../src/graph/metadata-guard.js';
import { agentInputSchema } from '../agent-input.js';
import { agentPricingSchema } from '../agent-pricing.js';
import { loopContextSchema } from './schemas.js';
import { duration } from '../duration.js';

const nonBlank = z.string().refine((value) => value.trim().length > 0, { error: 'must not be blank' });

/** A rig setup step (seed: "Rig setup running (copy files, run commands)"). */
export const rigOperationSchema = z.discriminatedUnion('type', [
  /** Copy a file or directory; `to` is relative to the work tree, `from` absolute or relative to it. */
  z.object({ type: z.literal('copy'), from: nonBlank, to: nonBlank }),
  /** Run a shell command in the work tree (or `cwd` below it); `allowFailure` keeps going when it fails. */
  z.object({
    type: z.literal('command'),
    run: nonBlank,
    cwd: z.string().optional(),
    allowFailure: z.boolean().optional(),
  }),
]);
export type RigOperation = z.infer<typeof rigOperationSchema>;

/** How to start the agent: exactly the agent process actor's input, minus what recovery adds. */
export const agentLaunchSchema = agentInputSchema.omit({
  recordedPid: true,
  recordedPidStart: true,
  pricing: true,
  wire: true,
  stallMs: true,
});
export type AgentLaunch = z.infer<typeof agentLaunchSchema>;

export const codonInputSchema = z.object({
  runId: nonBlank,
  codonId: nonBlank,
  /** When the codon started (ms since the epoch, the runtime's clock): the record's `startTime`. */
  startedAt: z.number().finite(),
  loopContext: loopContextSchema.optional(),
  /** The git working tree the codon works in: rig steps run and checkpoints are committed here. */
  workTree: nonBlank,
  agent: agentLaunchSchema,
  previousSessionId: z.string().optional(),
  rig: z.array(rigOperationSchema).default([]),
  /** Prices for turning usage into running cost (and a Codex turn's cost); a cost the agent reports is authoritative. */
  pricing: agentPricingSchema.optional(),
  /** Stop the agent once the codon's running cost reaches this many USD; the codon then completes with `budgetExceeded`. */
  budgetUsd: z.number().positive().optional(),
  /**
   * Run the agent's model calls through statewright's metering proxy (docs/lifecycles/codon.md, "At
   * the wire"): the running cost of every call as it ends, the budget enforced before the next call,
   * an unreachable upstream failing the codon with its cause. `false` runs the agent's calls direct.
   */
  wire: z.boolean().default(true),
  /** Model calls failing at the upstream this many times in a row fail the codon (`api-error` with the cause). */
  upstreamFailures: z.number().int().positive().default(3),
  /** Stop the agent once it has written nothing for this long (the bound of a codon without the wire). */
  stallTimeoutMs: duration(1).optional(),
  /** How long sentinel queues may take to drain before the codon fails. */
  drainTimeoutMs: duration().default(30_000),
});

export type CodonInput = z.input<typeof codonInputSchema>;
export type CodonConfig = z.output<typeof codonInputSchema>;

/** The validated input, or `MetadataValidationError` naming every missing or wrong field. */
export function parseCodonInput(input: unknown): CodonConfig {
  return parseInput(codonInputSchema, input, 'Codon', 'preparing');
}
