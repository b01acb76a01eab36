export { InvalidTransitionError } from './invalid-transition-error.js';
export {
  compileTransitions,
  lifecycleHelpers,
  type CompiledLifecycle,
  type LifecycleHelpers,
} from './lifecycle-helpers.js';
export {
  allStateNodes,
  eventTypes,
  finalStateNames,
  leafStates,
  stateName,
  transitionTable,
  validEventsByState,
  type TransitionRow,
} from './transition-table.js';
export { finalOutcomes, OUTCOMES, outcomeByName, type Outcome } from './final-outcomes.js';
export { verifyMachine, type VerificationReport } from './verify.js';
export { diagramModel, type DiagramModel } from './diagram-edges.js';
export { toMermaid } from './mermaid.js';
export { toDot } from './dot.js';
export {
  MetadataValidationError,
  metadataGuard,
  metadataGuardFailure,
  metadataErrorFromIssues,
  parseInput,
  type MetadataSelector,
  namedEdgeOf,
  type MetadataGuardOptions,
  type NamedEdge,
} from './metadata-guard.js';
export { explainRejection, currentStateName } from './explain-rejection.js';
export { RoleError, roleGuard, roleGuardFailure, type RoleSource } from './role-guard.js';
export { explainedGuard, explainedGuardFailure, type GuardCheck } from './explained-guard.js';
export { acceptedEvents, type AcceptedEvent, type EventNeeds } from './event-needs.js';
export { budgetGuard } from './budget-guard.js';
export {
  CHECK_RULES,
  checkMachine,
  type CheckRule,
  type CheckSeverity,
  type CheckViolation,
  type CheckOptions,
  type RuleDefinition,
} from './check-machine.js';
export {
  statechart,
  type Statechart,
  type StatechartGuard,
  type StatechartState,
  type StatechartTransition,
  type StateKind,
  type Trigger,
} from './statechart.js';
export {
  configurationGraph,
  type Configuration,
  type ConfigurationGraph,
  type ConfigurationStep,
} from './configurations.js';
export type { CheckDeclarations } from './state-declarations.js';
export { transitionEdges, type TransitionEdge } from './transition-table.js';
export { actorWords, delayWords, eventOrigin, eventWords, isOutsideEvent, type EventOrigin } from './event-words.js';
export { invokedActorIds, moveWords, ownMoves, type OwnMove } from './own-moves.js';
