/**
 * An agent's prices, in USD per million tokens by kind: how a lifecycle turns token usage into a
 * cost where the agent reports none (a running estimate from Claude's assistant messages, or the
 * whole cost of a Codex turn, whose `turn.completed` carries tokens but no price).
 */
import { z } from 'zod';

const perMTok = z.number().nonnegative();

export const agentPricingSchema = z.strictObject({
  input: perMTok,
  output: perMTok,
  cacheCreation: perMTok,
  cacheRead: perMTok,
});

export type AgentPricing = z.infer<typeof agentPricingSchema>;

/** Tokens by the kinds the prices name. */
export interface PricedTokens {
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
}

/** Claude's snake_case usage (Codex's, once read, has the same shape). */
export interface AgentUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

const tokenCount = z.number().int().nonnegative().optional();

/** `AgentUsage` as a schema, for usage kept in a run's input (a resumed thread's total). */
export const agentUsageSchema = z.object({
  input_tokens: tokenCount,
  output_tokens: tokenCount,
  cache_creation_input_tokens: tokenCount,
  cache_read_input_tokens: tokenCount,
});

/** An agent's usage by the kinds the prices name; a kind it leaves out counts 0. */
export function tokensOfUsage(usage: AgentUsage | undefined): PricedTokens {
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheCreationTokens: usage?.cache_creation_input_tokens ?? 0,
    cacheReadTokens: usage?.cache_read_input_tokens ?? 0,
  };
}

/** The cost of `tokens` at `pricing`; 0 when no pricing is configured. */
export function costAtPricing(tokens: PricedTokens, pricing: AgentPricing | undefined): number {
  if (!pricing) return 0;
  return (
    (tokens.inputTokens * pricing.input +
      tokens.outputTokens * pricing.output +
      tokens.cacheCreationTokens * pricing.cacheCreation +
      tokens.cacheReadTokens * pricing.cacheRead) /
    1_000_000
  );
}
