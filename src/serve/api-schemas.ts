/**
 * The shapes of the HTTP API as zod schemas: what its routes take (bodies, query parameters) and
 * what they answer. The handlers parse requests with these schemas, and `GET /api/openapi.json`
 * describes the API from the same ones (api-routes.ts, openapi.ts), so the two cannot drift. The
 * response types the code builds (`RunJson`, `MachineJson`, `ErrorBody`...) are checked against
 * them at compile time at the end of this file.
 */
import { z } from 'zod';
import { ERROR_KINDS } from '../errors.js';
import { OUTCOMES } from '../graph/index.js';
import type { Explanation } from '../explain/explanation.js';
import type { RunCounts } from '../stores/store.js';
import type { ErrorBody } from './error-response.js';
import type { MachineJson } from './machine-json.js';
import type { RunJson } from './run-json.js';

/** How many runs a page of `GET /api/runs` holds unless `limit` says, and the most it may say. */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
/**
 * The most runs one `GET /api/runs?waitsForPerson=true` page reads and explains before it answers.
 * Whether a run waits for a person is its explanation's, not a column the store can index, so the
 * page reads runs newest first and explains each: without a bound, a store of 100,000 runs with
 * few waiting would be read whole by one request. The page stops here and gives `next` where it
 * stopped, so a client goes on a budget at a time.
 */
export const WAITING_SCAN_BUDGET = 500;

/** The run statuses a filter may name (the runtime's `RUN_STATUSES`). */
const RUN_STATUS_VALUES = ['active', 'done', 'error', 'stopped'] as const;

// ---- requests ----

const MACHINE_PROBLEM = "'machine' must name a lifecycle";
export const startRunBody = z
  .object({
    machine: z.string({ error: MACHINE_PROBLEM }).min(1, MACHINE_PROBLEM).describe('The lifecycle to start.'),
    id: z
      .string({ error: "'id', when given, must be a string" })
      .optional()
      .describe('The run id (a name: no `.`, `..`, control or invisible characters); a random one when left out.'),
    input: z.unknown().optional().describe("The run's input, as its lifecycle takes it."),
  })
  .meta({ id: 'StartRunBody', description: 'What `POST /api/runs` takes.' });

const EVENT_PROBLEM = "'event' must be an object with a string 'type'";
export const sendEventBody = z
  .object({
    event: z
      .looseObject({ type: z.string({ error: EVENT_PROBLEM }) }, { error: EVENT_PROBLEM })
      .describe('The event: its `type` and any payload the lifecycle reads.'),
    actor: z.string({ error: "'actor', when given, must be a string" }).min(1).optional().describe('Who sends it.'),
    reason: z.string({ error: "'reason', when given, must be a string" }).min(1).optional().describe('Why.'),
    idempotencyKey: z
      .string({ error: "'idempotencyKey', when given, must be a string" })
      .min(1)
      .optional()
      .describe('A key that makes a repeated send answer with the first one’s result instead of sending again.'),
  })
  .meta({ id: 'SendEventBody', description: 'What `POST /api/runs/:id/events` takes.' });

export const endRunBody = z
  .object({
    reason: z
      .string({ error: "'reason' must be a string: why the run is ended, kept in its audit trail" })
      .min(1, { error: "'reason' must say why the run is ended" })
      .describe('Why it is ended, kept in the audit trail.'),
    actor: z
      .string({ error: "'actor', when given, must be a string" })
      .min(1)
      .optional()
      .describe('Who ends it, kept in the audit trail (`api` when left out).'),
  })
  .meta({ id: 'EndRunBody', description: 'What `POST /api/runs/:id/end` takes.' });

/** A query value left empty (`?status=`) counts as left out: the query parsers drop them first. */
export const runFilterQuery = z.object({
  machine: z.string().optional().describe('Only runs of this lifecycle.'),
  status: z
    .enum(RUN_STATUS_VALUES, { error: `it is none of ${RUN_STATUS_VALUES.join(', ')}` })
    .optional()
    .describe('Only runs with this status.'),
  state: z.string().optional().describe('Only runs resting in this state (dotted for nested states).'),
});

const LIMIT_PROBLEM = `it must be a whole number from 1 to ${MAX_PAGE_SIZE} (the most runs one page holds; ${DEFAULT_PAGE_SIZE} when left out)`;
export const runPageQuery = runFilterQuery.extend({
  q: z.string().optional().describe('Part of the run id: A-Z in either case, every other character as it is.'),
  limit: z
    .string()
    .regex(/^\d{1,7}$/, LIMIT_PROBLEM)
    .transform(Number)
    .pipe(z.number().min(1, LIMIT_PROBLEM).max(MAX_PAGE_SIZE, LIMIT_PROBLEM))
    .optional()
    .meta({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })
    .describe('How many runs the page holds.'),
  cursor: z.string().optional().describe('The `next` of the page before, as it came.'),
  setAside: z.string().optional().describe('`true`: only the runs this host set aside (it cannot restore them).'),
  waitsForPerson: z
    .enum(['true', 'false'], { error: "it must be 'true' (only the runs waiting for a person) or 'false'" })
    .optional()
    .describe(
      `\`true\`: only the runs waiting for a person (their explanation's \`waitingFor\`); \`status\` is \`active\` unless given. A page reads at most ${WAITING_SCAN_BUDGET} runs, so it may hold fewer than \`limit\` and still have a \`next\`.`,
    ),
});

/** `GET /api/runs/:id/explain`'s query. */
export const explainQuery = z.object({
  verbose: z
    .enum(['true', 'false'], { error: "it must be 'true' (speak of the host lease however many hosts) or 'false'" })
    .optional()
    .describe(
      '`true`: speak of the host lease (holder, epoch, heartbeat) even when one host has the store, as `statewright explain --verbose`.',
    ),
});

/**
 * `GET /api/steps`'s query, as step-stream.ts reads it (by hand, with `Last-Event-ID` as `since`'s
 * stand-in); described here for the description only.
 */
export const diagramQuery = z.object({
  events: z
    .enum(['all'], { error: 'it is not all' })
    .optional()
    .describe(
      "`all`: every event written on its arrow. Left out, the events no person sends (agents', timers', a driver's) are folded into one muted line per arrow, listed in its tooltip and `data-quiet`.",
    ),
});

export const stepsQuery = z.object({
  run: z
    .string()
    .optional()
    .describe("Only this run's steps; with `since` (or `Last-Event-ID`), its missed steps first."),
  since: z
    .string()
    .regex(/^\d{1,15}$/)
    .optional()
    .meta({ type: 'integer', minimum: 0 })
    .describe('With `run`: replay the steps committed after this seq. Without `run`, a 422 `QueryParameterError`.'),
});

// ---- responses ----

const hostLeaseJson = z
  .object({
    holder: z.string(),
    state: z.enum(['held', 'released', 'handedOver']),
    epoch: z.number(),
    expiresAt: z.number(),
    renewedAt: z.number(),
    heartbeatAgeMs: z.number(),
    expired: z.boolean(),
  })
  .meta({ id: 'HostLease', description: "A host's hold on a run, on a store with leases." });

const storedLease = hostLeaseJson.omit({ heartbeatAgeMs: true, expired: true });

export const runJsonSchema = z
  .object({
    runId: z.string(),
    machine: z.string(),
    version: z.number(),
    status: z.string(),
    state: z.string(),
    seq: z.number(),
    value: z.unknown(),
    context: z.unknown(),
    input: z.unknown(),
    owner: z.object({ id: z.string(), pid: z.number(), host: z.string() }).nullable(),
    createdAt: z.number(),
    updatedAt: z.number(),
    lease: hostLeaseJson.nullable(),
    wakeAt: z.number().nullable(),
    setAside: z.object({ reason: z.string() }).optional(),
  })
  .meta({ id: 'Run', description: 'A run as the API shows it: its committed row, without the raw XState snapshot.' });

export const runAnswer = z.object({ run: runJsonSchema }).meta({ id: 'RunAnswer' });

export const runPageAnswer = z
  .object({
    runs: z.array(
      runJsonSchema.extend({
        verdict: z.string().describe("The run's explain verdict: what will move it next."),
        waitsForPerson: z.boolean().optional().describe('Whether it waits for a decision of a person.'),
        note: z
          .string()
          .optional()
          .describe(
            "What the run's lifecycle says of an active run beside its state (an agent retrying; whom a `waitsFor` state waits for): `statewright status`'s NOTE. Absent when none.",
          ),
        ownerAlive: z
          .boolean()
          .optional()
          .describe(
            "Whether the owner's process lives, as this host sees it (a process of another machine counts as alive); absent without an owner.",
          ),
      }),
    ),
    next: z.string().nullable().describe('The cursor of the next page; null on the last.'),
    scanned: z
      .number()
      .int()
      .optional()
      .describe(
        `With \`waitsForPerson=true\`: how many runs the page read to find its runs (at most ${WAITING_SCAN_BUDGET}).`,
      ),
  })
  .meta({ id: 'RunPage' });

export const runCountsAnswer = z
  .object({
    counts: z.record(z.string(), z.number()).describe('How many runs rest in each state, over every lifecycle.'),
    total: z.number(),
    groups: z
      .array(z.object({ machine: z.string(), status: z.string(), state: z.string(), runs: z.number() }))
      .describe(
        "The same runs by lifecycle, status and state (each combination once): what a state means in its lifecycle (its outcome) is counted from these, as the live view's counts by status are.",
      ),
  })
  .meta({ id: 'RunCounts', description: 'How many runs rest in each state, and by lifecycle, status and state.' });

export const machineJsonSchema = z
  .object({
    name: z.string(),
    version: z.number(),
    summary: z.string(),
    initial: z.string(),
    states: z.array(z.string()),
    terminalStates: z.array(z.string()),
    events: z.array(z.string()),
    personEvents: z.array(z.string()).describe('The events a person may send: the live view offers these as buttons.'),
    outcomes: z
      .record(z.string(), z.enum(OUTCOMES))
      .describe(
        "Each final state's outcome: the lifecycle's `outcomes`, else read from its name (`failed`, `rejected`: failed; `cancelled`; `skipped`; any other: done).",
      ),
    endingEvents: z
      .record(z.string(), z.array(z.string()))
      .describe(
        'By state, the events that end or cancel a run resting there, in a final state whose outcome is not done or by a name that cancels: the live view asks before sending them.',
      ),
    input: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        "What a run is started with, as JSON Schema: the lifecycle's `input`. Absent when the lifecycle does not describe it.",
      ),
  })
  .meta({ id: 'Machine', description: 'A registered lifecycle.' });

export const machinesAnswer = z.object({ machines: z.array(machineJsonSchema) }).meta({ id: 'Machines' });

export const configStatusSchema = z
  .object({
    file: z.string().nullable().describe('The config file serve runs; null: the built-in lifecycles alone.'),
    hash: z
      .string()
      .nullable()
      .describe("A hash of the config's files as serve loaded them; the CLI compares its own."),
    inputs: z.array(z.string()).describe('The config file and the local files it imports: what serve watches.'),
    loadedAt: z.string().nullable().describe('When the config serve runs was loaded (ISO 8601).'),
    lifecycles: z.record(z.string(), z.number()).describe('The version of each lifecycle serve hosts, by name.'),
    reloads: z.number().describe('How many times serve loaded a changed config since it started.'),
    error: z
      .object({ message: z.string(), at: z.string(), hash: z.string() })
      .nullable()
      .describe(
        "Why the config as it is now on disk is not the one serve runs (the last reload's error); null when it is.",
      ),
  })
  .meta({ id: 'ConfigStatus', description: 'The config serve runs, and whether the one on disk could be loaded.' });

export const credentialBody = z
  .object({
    run: z
      .string({ error: "'run' must be the id of a task run" })
      .min(1)
      .describe('The task run the credential is for.'),
    agent: z
      .string({ error: "'agent' must be a task agent, role:vendor:index (e.g. executor:claude:1)" })
      .regex(/^(supervisor|executor|human):[A-Za-z0-9_.-]+:[0-9]+$/, {
        error: "'agent' must be a task agent, role:vendor:index with role supervisor, executor or human",
      })
      .describe('The agent it acts as, `role:vendor:index`.'),
  })
  .strict()
  .meta({ id: 'CredentialRequest' });

export const credentialAnswer = z
  .object({
    credential: z
      .string()
      .describe('Sent as `Authorization: Bearer <credential>` (or STATEWRIGHT_TOKEN for `statewright mcp --task`).'),
    holder: z.string().describe('How the audit trail names what it sends: `role:<agent>@<run>`.'),
  })
  .meta({ id: 'Credential' });

export const viewSessionAnswer = z
  .object({
    credential: z.string().describe('Sent as `Authorization: View <credential>` on every call of the view.'),
    lifetimeMs: z
      .number()
      .describe(
        'How long it lives: the view trades it for a fresh one at this route (with the credential) before then.',
      ),
  })
  .meta({ id: 'ViewSession' });

export const hostAnswer = z
  .object({
    hostId: z.string(),
    pid: z.number(),
    host: z.string(),
    leases: z.boolean(),
    leaseTtlMs: z.number().nullable(),
    hibernateAfterMs: z.union([z.number(), z.literal(false)]),
    held: z.number().nullable().describe('How many runs this host holds now; null without leases.'),
    store: z
      .string()
      .describe(
        "The kind of store it hosts runs on (`sqlite`, `postgres`, `json-file`, `memory`...): a `memory` store's runs live in this process alone, so the view starts runs itself rather than pointing to the CLI.",
      ),
    hosts: z
      .number()
      .describe(
        'How many hosts hold runs of the store now, this one included (1 without leases): above 1, several hosts share the store and the live view shows who holds each run.',
      ),
    config: configStatusSchema,
  })
  .meta({ id: 'Host' });

export const historyAnswer = z
  .object({
    events: z.array(
      z.object({
        seq: z.number(),
        event: z.unknown(),
        label: z
          .string()
          .describe(
            'The event as a person reads it: an outside event\'s type, or one XState makes in words ("after 20 s", "when payout is done").',
          ),
        at: z.number(),
        actor: z.string().optional().describe('Who sent it, as the sender said (free text).'),
        actorLabel: z
          .string()
          .optional()
          .describe(
            "The actor as a person reads it: an actor of the run by the name its machine gives it (an invoke's id, its actor's name); absent for XState's own moves (`actor` `xstate`) and events without an actor.",
          ),
        reason: z.string().optional(),
        credential: z
          .string()
          .optional()
          .describe(
            "Who sent it, by the credential its request showed, as serve names it: `user-token` (the token serve printed), `view` (the live view's credential), `session:<id>` (that session's agent), `no-token` (a serve without a token). Set by serve, never from the request; none for an event sent in-process (an actor, a timer, a command on the store).",
          ),
        idempotencyKey: z.string().optional().describe('The idempotency key it was sent with, if any.'),
        before: z.string(),
        after: z.string(),
      }),
    ),
  })
  .meta({ id: 'History' });

export const explanationAnswer = z
  .looseObject({
    runId: z.string(),
    machine: z.string(),
    state: z.string(),
    status: z.string(),
    since: z.number(),
    accepts: z.array(z.unknown()).describe('The events a sender can send that the state takes, with what each needs.'),
    movesOnItsOwn: z
      .array(z.object({ event: z.string(), label: z.string(), to: z.array(z.string()) }))
      .describe(
        'What XState does for the run by itself in this state: its event type, in words ("after 20 s"), and where it leads.',
      ),
    deadlines: z.array(z.unknown()),
    actors: z
      .object({ awaited: z.array(z.string()), spawned: z.array(z.string()) })
      .optional()
      .describe('Its live child actors by name: the ones it waits on, and the child machines it spawned beside it.'),
    owner: z.object({ id: z.string(), pid: z.number(), host: z.string(), alive: z.boolean() }).nullable(),
    hostedOn: z
      .object({ engine: z.literal('restate'), object: z.string(), key: z.string() })
      .optional()
      .describe('Where a run hosted by an engine (Restate) lives, `owner` being null: its virtual object and key.'),
    hostLease: hostLeaseJson.optional(),
    severalHosts: z
      .boolean()
      .optional()
      .describe(
        'With `hostLease`: whether several live hosts hold runs of the store. With one, the view and the CLI leave the lease unsaid.',
      ),
    wakeAt: z.number().optional(),
    setAside: z.object({ reason: z.string() }).optional(),
    verdict: z.string().describe('One line: what will move the run next and when.'),
  })
  .meta({
    id: 'Explanation',
    description: "A run's explanation (`explainRun`): what it accepts, its deadlines, what moves it next.",
  });

const ERROR_KIND_NAMES = Object.keys(ERROR_KINDS) as [keyof typeof ERROR_KINDS, ...(keyof typeof ERROR_KINDS)[]];

export const errorBodySchema = z
  .object({
    error: z.string().describe("The typed error's name, e.g. `UnknownRunError`."),
    kind: z.enum(ERROR_KIND_NAMES).describe('What a caller can do about it; it sets the status (src/errors.ts).'),
    message: z.string().describe('What was wrong and what to do.'),
    runId: z.string().optional(),
    holder: z.string().optional(),
    lease: storedLease.optional(),
    lost: z
      .array(z.object({ runId: z.string(), holder: z.string(), epoch: z.number(), stored: storedLease.nullable() }))
      .optional(),
    parameter: z.string().optional().describe('`QueryParameterError`: the query parameter that was wrong.'),
  })
  .meta({ id: 'Error', description: 'A typed error: its name, its kind and a message saying what to do.' });

// ---- the types the handlers build, checked against the schemas ----

// Each value the code builds is one its schema describes (a field added to one and not the other fails here).
const _machine = (json: MachineJson): z.input<typeof machineJsonSchema> => json;
const _machineBack = (json: z.output<typeof machineJsonSchema>): MachineJson => json;
const _run = (json: RunJson): z.input<typeof runJsonSchema> => json;
const _runBack = (json: z.output<typeof runJsonSchema>): Omit<RunJson, 'lease'> => json;
const _counts = (counts: RunCounts): z.input<typeof runCountsAnswer> => ({ ...counts, groups: [...counts.groups] });
const _error = (body: ErrorBody): z.input<typeof errorBodySchema> => ({ ...body, lost: body.lost?.map((l) => l) });
const _explanation = (x: Explanation): z.input<typeof explanationAnswer> => ({
  ...x,
  accepts: [...x.accepts],
  movesOnItsOwn: [...x.movesOnItsOwn],
  deadlines: [...x.deadlines],
});
void [_machine, _machineBack, _run, _runBack, _counts, _error, _explanation];
