import type { Verdict } from '../../machines/review-loop/index.js';
import { StatewrightError } from '../errors.js';

/** The two agents agentpair pairs; a loop's agents are named after them to say whose verdict counts. */
export const AGENT_NAMES = ['claude', 'codex'] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

/** `claude` or `codex`: that agent's verdict is final. `claudex`: both must pass, either can fail. */
export const REVIEW_MODES = ['claude', 'codex', 'claudex'] as const;
export type ReviewMode = (typeof REVIEW_MODES)[number];

export interface Consensus {
  readonly outcome: 'pass' | 'fail' | 'pending';
  /** Every verdict that counts agrees (always true when one agent decides). */
  readonly unanimous: boolean;
  readonly reason: string;
}

export class ReviewModeError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'ReviewModeError';
}

type Verdicts = Partial<Record<AgentName, { readonly verdict: Verdict; readonly reason?: string }>>;

const label: Record<AgentName, string> = { claude: 'Claude', codex: 'Codex' };

/** Combines the verdicts of the agents under `mode`. */
export function consensus(mode: ReviewMode, verdicts: Verdicts): Consensus {
  if (mode === 'claude' || mode === 'codex') {
    const review = verdicts[mode];
    const outcome = review?.verdict === 'pass' ? 'pass' : review?.verdict === 'fail' ? 'fail' : 'pending';
    const reason =
      review?.reason ||
      (outcome === 'pending' ? `Waiting for ${label[mode]} to approve` : `${label[mode]}: ${outcome.toUpperCase()}`);
    return { outcome, unanimous: true, reason };
  }
  if (mode !== 'claudex') {
    throw new ReviewModeError(`Unknown review mode ${JSON.stringify(mode)}: use one of ${REVIEW_MODES.join(', ')}.`);
  }
  const claude = verdicts.claude?.verdict ?? 'none';
  const codex = verdicts.codex?.verdict ?? 'none';
  const unanimous = claude === codex;
  if (claude === 'fail' || codex === 'fail') {
    const part = (name: AgentName) =>
      `${label[name]}: ${(verdicts[name]?.verdict ?? 'none').toUpperCase()}${verdicts[name]?.reason ? ` (${verdicts[name]!.reason})` : ''}`;
    return { outcome: 'fail', unanimous, reason: `${part('claude')}; ${part('codex')}` };
  }
  if (claude === 'pass' && codex === 'pass') return { outcome: 'pass', unanimous, reason: 'Both agents approved' };
  return { outcome: 'pending', unanimous, reason: 'Waiting for both agents to provide review' };
}
