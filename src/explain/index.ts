export { explainRun, type ExplainSource, type ExplainsHosting } from './explain-run.js';
export type { ArmedDeadline, Explanation, HostedOn } from './explanation.js';
export type { Refusal } from '../runtime/refusal.js';
export { verdict, type VerdictFacts } from './verdict.js';
export { explanationText } from './explanation-text.js';
