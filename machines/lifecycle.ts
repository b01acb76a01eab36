/**
 * What the runtime knows of a lifecycle: its machine, version, recovery hook, migrations and index
 * keys. The registry (`machines/index.ts`) lists the lifecycles; the runtime and the machines'
 * recovery hooks import these types from here, never the registry, so nothing imports it back.
 */
import type { Outcome } from '../src/graph/final-outcomes.js';
import type { AnyActorLogic, AnyMachineSnapshot, AnyStateMachine, EventObject } from 'xstate';
import type { ZodType } from 'zod';

export interface Lifecycle<M extends AnyStateMachine = AnyStateMachine> {
  readonly machine: M;
  /**
   * Bumped whenever a change makes stored snapshots of the previous definition unsafe to restore
   * (a state renamed or removed, context reshaped). Stored runs carry it.
   */
  readonly version: number;
  readonly summary: string;
  /**
   * What a run is started with (the `input` of `start`, the API's `POST /api/runs`), as a person or
   * a program gives it: the live view's "start a run" form is made from it (strings, numbers,
   * booleans, choices, optional fields; JSON for the rest). Leave out what the host fills in itself
   * (a session's `created_at`). The machine still checks its input; this describes it.
   */
  readonly input?: ZodType;
  /**
   * Called for every non-terminal run restored when a runtime starts: the events to apply to it
   * (for example "the process that owned you is gone: you crashed"). Pure: what it needs to know
   * about the outside world arrives in `run`.
   */
  readonly recover?: (run: RecoveringRun) => Array<{ type: string; [key: string]: unknown }>;
  /** Upgrades a stored snapshot from version N (the key) to N + 1. */
  readonly migrations?: Readonly<Record<number, (persistedSnapshot: any) => any>>;
  /**
   * Index keys derived from a run's snapshot, by name, for queries that must not load every run
   * ("active sessions, most recent activity first"). The runtime computes them at every commit; a
   * store with indexes (SQLite) keeps them in the same transaction, others are scanned.
   */
  readonly indexes?: Readonly<Record<string, IndexKey>>;
  /**
   * What only this lifecycle knows of why a run is where it is (`explainRun`): who it waits for,
   * the lease, its agent process, and a better verdict than the generic one. Pure, like `recover`:
   * whether the agent is alive is looked up by the caller.
   */
  readonly explain?: (run: ExplainingRun) => LifecycleExplanation;
  /**
   * A few words `statewright status` shows beside an active run's state, where the state alone
   * misleads ("retrying 3/10 (HTTP 529)": an agent that looks at work is not). Pure, like `explain`.
   */
  readonly statusNote?: (run: ExplainingRun) => string | undefined;
  /**
   * The event types the lifecycle defines outside its machine (the keys of its event schemas):
   * `statewright check` reports one that no reachable state handles.
   */
  readonly events?: readonly string[];
  /**
   * The events a person may send: the live view offers a button for these only (and for the events
   * `waitsFor` decides with). Left out, every event the machine handles but `agent.*`, `xstate.*`,
   * `done.*` and `error.*`, the events its actors and XState send.
   */
  readonly personEvents?: readonly string[];
  /**
   * The states in which a run waits for a person, and what for: `explain`, `status` and the live
   * view say so and offer `approve`/`deny` as the events that decide it; `statewright check` takes
   * them as declared waits. (`defineLifecycle` turns them into the `explain` hook.)
   */
  readonly waitsFor?: WaitsFor;
  /**
   * How a run that reaches each final state ended: `done`, `failed`, `cancelled` or `skipped`. A
   * final state left out is read by its name (`failed`, `rejected`, `timed_out`... failed;
   * `cancelled` cancelled; `skipped` skipped; any other done), so `{ rejected: 'done' }` says a
   * rejected expense is an outcome, not a failure. The live view colours finished runs by it and
   * asks before an event that ends a run other than `done`.
   */
  readonly outcomes?: Readonly<Record<string, Outcome>>;
  /**
   * `statewright check` fails on its lint rules too (`waits-without-deadline`, `unbounded-cycle`),
   * which otherwise only warn: every wait declared, every cycle bounded. The built-ins are strict.
   */
  readonly strict?: boolean;
  /**
   * The payload each event must carry, as a zod schema, by event type: `statewright test` builds the
   * payloads of its generated paths from these (and from the machine's metadata guards).
   */
  readonly eventSchemas?: Readonly<Record<string, ZodType>>;
  /**
   * Events for `statewright test` and `statewright/testing`, by type: for an event no schema says
   * how to build (one naming a sender's role, one whose guard reads the context), or to try several
   * payloads. A list, or a function of the snapshot the event is sent in.
   */
  readonly testEvents?: TestEvents;
  /** The inputs test runs start with (several where the reachable graph depends on the input); default one run without input. */
  readonly testInputs?: readonly unknown[];
  /**
   * What of the context decides which events a state takes, for path generation: context that only
   * accumulates (costs, counters, timestamps) left out keeps the graph finite. Default: all of it.
   */
  readonly testContextKey?: (context: any) => unknown;
  /** Actors a test runs instead of the real ones (an agent, a payment), by the name the machine gives them. */
  readonly testActors?: Readonly<Record<string, AnyActorLogic>>;
}

/** `Lifecycle.testEvents`: by event type, a list of events or a function of the snapshot; or one function of both. */
export type TestEvents =
  | Readonly<Record<string, readonly TestEvent[] | ((snapshot: AnyMachineSnapshot) => TestEvent[])>>
  | ((type: string, snapshot: AnyMachineSnapshot) => TestEvent[]);

/** An event with its payload, as a test sends it. */
export interface TestEvent extends EventObject {
  readonly [key: string]: unknown;
}

/** What a run waits for in one state: a line of text, or that and the events that decide it. */
export type WaitingFor =
  | string
  | {
      readonly summary: string;
      readonly approve?: { readonly type: string; readonly [key: string]: unknown };
      readonly deny?: { readonly type: string; readonly [key: string]: unknown };
    };

/** By state, as tables name it (`review`, or `Active.Review` for a nested one and the states inside it). */
export type WaitsFor = Readonly<Record<string, WaitingFor>>;

/** What a lifecycle's `explain` hook learns about a run. */
export interface ExplainingRun {
  readonly runId: string;
  /** The state the run rests in, as tables name it ("waiting_input", "Active.Working.Executing"). */
  readonly state: string;
  readonly snapshot: { value: unknown; context: any; status: string };
  /** The caller's clock reading. */
  readonly now: number;
}

/** Something the run waits for a person to decide, with the events that decide it, ready to send. */
export interface PendingDecision {
  readonly kind: 'approval' | 'question';
  readonly id: string;
  readonly summary: string;
  readonly detail?: string;
  readonly approve?: { type: string; [key: string]: unknown };
  readonly deny?: { type: string; [key: string]: unknown };
}

/** A lifecycle's own part of an explanation: each field only where it applies. */
export interface LifecycleExplanation {
  readonly waitingFor?: readonly PendingDecision[];
  readonly lease?: { readonly holder: string; readonly expiresAt: number; readonly lastHeartbeat: number };
  /** The agent process the run started, as recorded: its pid (and start time) and the file it writes. */
  readonly agent?: { readonly pid: number; readonly pidStart?: string; readonly logPath?: string };
  /** What will move the run next, where the lifecycle says it better than the generic verdict. */
  readonly verdict?: string;
}

/** One index key: the run's value (null: not listed under this key) and the order to list by. */
export interface IndexKey {
  readonly order: 'asc' | 'desc';
  readonly of: (snapshot: { value: unknown; context: any; status: string }) => number | null;
}

/** What a recovery hook learns about a run restored from its last committed snapshot. */
export interface RecoveringRun {
  readonly runId: string;
  /** The persisted XState snapshot (value, context, status). */
  readonly snapshot: { value: unknown; context: any; status: string };
  /** The runtime that last committed to the run, and whether its process is still alive. */
  readonly previousOwner: { id: string; pid: number; host: string; alive: boolean } | undefined;
  /** The restoring runtime's clock reading. */
  readonly now: number;
}

export type Lifecycles = Readonly<Record<string, Lifecycle>>;
