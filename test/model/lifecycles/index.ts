import type { LifecycleName } from '../../../machines/index.js';
import { codonModel } from './codon.js';
import { codonRunModel } from './codon-run.js';
import { executionModel } from './execution.js';
import type { LifecycleModel } from './model.js';
import { reviewLoopModel } from './review-loop.js';
import { taskModel } from './task.js';
import { sessionModel } from './session.js';

/** One model per registered lifecycle; the type makes a missing one a compile error. */
export const lifecycleModels: Record<LifecycleName, LifecycleModel> = {
  execution: executionModel,
  'review-loop': reviewLoopModel,
  task: taskModel,
  session: sessionModel,
  codon: codonModel,
  'codon-run': codonRunModel,
};
