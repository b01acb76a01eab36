/**
 * Every route of the HTTP API, declared once: its method and path (as hono spells them), what it
 * takes and what it answers, as zod schemas. api-app.ts registers its handlers from this table and
 * openapi.ts describes the API from it; test/serve/openapi.test.ts checks that hono's routes and
 * this table are the same set, so a route added without a description fails.
 */
import type { z } from 'zod';
import type { ErrorKind } from '../errors.js';
import {
  diagramQuery,
  explanationAnswer,
  explainQuery,
  historyAnswer,
  hostAnswer,
  machinesAnswer,
  runAnswer,
  runCountsAnswer,
  runFilterQuery,
  runPageAnswer,
  runPageQuery,
  WAITING_SCAN_BUDGET,
  endRunBody,
  sendEventBody,
  startRunBody,
  stepsQuery,
  viewSessionAnswer,
  credentialAnswer,
  credentialBody,
} from './api-schemas.js';

export interface ApiRoute {
  readonly method: 'GET' | 'POST';
  /** hono's path, `:name` for a path parameter. */
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  /** The answer when all goes well. */
  readonly ok: {
    readonly status: 200 | 201;
    readonly description: string;
    /** A JSON answer's schema; or the media type of another (an SVG, an event stream). */
    readonly schema?: z.ZodType;
    readonly mediaType?: string;
  };
  /** The typed errors the route itself may answer with (beyond those every route may: see openapi.ts). */
  readonly errors: readonly ErrorKind[];
  /** Answered without the token (the browser guard still applies). */
  readonly public?: true;
}

const RUN_ERRORS = ['not-found', 'conflict', 'unavailable'] as const satisfies readonly ErrorKind[];

export const API_ROUTES = {
  openapi: {
    method: 'GET',
    path: '/api/openapi.json',
    summary: 'This description of the API (OpenAPI 3.1)',
    description:
      'Answered without the token: it describes the API, nothing of the runs. The Host and Origin checks apply as to every route.',
    ok: { status: 200, description: 'The OpenAPI 3.1 description.', mediaType: 'application/json' },
    errors: [],
    public: true,
  },
  viewSession: {
    method: 'POST',
    path: '/api/view-session',
    summary: "The live view's per-tab credential, for the token",
    description:
      "What the live view's script trades the token of its URL's fragment for (`Authorization: Bearer <token>`), and then its credential for a fresh one (`Authorization: View <credential>`): a credential it sends as `Authorization: View <credential>`, kept in the tab, lapsing after `lifetimeMs`. No cookie is set.",
    ok: { status: 201, description: 'A new credential.', schema: viewSessionAnswer },
    errors: [],
  },
  credentials: {
    method: 'POST',
    path: '/api/credentials',
    summary: "A task agent's role credential, for the user's token",
    description:
      "A credential that acts as `agent` on the task run `run` only: it sends that agent's events of its role to that run and reads it, nothing else (403 `CredentialScopeError` beyond). Only the user's token gets one: a scoped credential or the live view's is refused (403), and a serve with `--no-token` gives none (409 `NoCredentialsError`). Derived from serve's token: a new token voids it.",
    body: credentialBody,
    ok: { status: 201, description: 'The credential.', schema: credentialAnswer },
    errors: ['invalid', 'not-found', 'conflict', 'forbidden'],
  },
  host: {
    method: 'GET',
    path: '/api/host',
    summary: 'This host: its id, process, lease settings and how many runs it holds',
    ok: { status: 200, description: 'This host.', schema: hostAnswer },
    errors: ['unavailable'],
  },
  machines: {
    method: 'GET',
    path: '/api/machines',
    summary: 'The registered lifecycles',
    ok: { status: 200, description: 'Every registered lifecycle.', schema: machinesAnswer },
    errors: [],
  },
  diagram: {
    method: 'GET',
    path: '/api/machines/:name/diagram.svg',
    summary: "A lifecycle's diagram",
    query: diagramQuery,
    ok: {
      status: 200,
      description: "The lifecycle's statechart, laid out, its quiet events folded unless `events=all`.",
      mediaType: 'image/svg+xml',
    },
    errors: ['not-found', 'invalid'],
  },
  listRuns: {
    method: 'GET',
    path: '/api/runs',
    summary: 'A page of runs, newest first, each with its explain verdict',
    description: `Filtered and searched by the store. With \`waitsForPerson=true\` (\`status\` \`active\` unless given), only the runs waiting for a person: a filtered page scans at most ${WAITING_SCAN_BUDGET} runs (newest first, each explained), so it may hold fewer than \`limit\` runs, even none, and still have a \`next\` (where the scan stopped; null only when the store has no more), and says how many it read in \`scanned\`. A cursor the server did not give out, a limit out of range, an unknown status or a \`waitsForPerson\` other than true or false is a 422 \`QueryParameterError\` naming the parameter.`,
    query: runPageQuery,
    ok: { status: 200, description: 'One page of runs.', schema: runPageAnswer },
    errors: ['invalid', 'unavailable'],
  },
  countRuns: {
    method: 'GET',
    path: '/api/runs/counts',
    summary: 'How many runs rest in each state, and by lifecycle, status and state',
    query: runFilterQuery,
    ok: { status: 200, description: 'The counts, exact, from the store.', schema: runCountsAnswer },
    errors: ['invalid', 'unavailable'],
  },
  startRun: {
    method: 'POST',
    path: '/api/runs',
    summary: 'Start a run',
    body: startRunBody,
    ok: { status: 201, description: 'The run, once its first snapshot is committed.', schema: runAnswer },
    errors: ['invalid', 'not-found', 'conflict', 'too-large', 'unsupported-type', 'unavailable'],
  },
  getRun: {
    method: 'GET',
    path: '/api/runs/:id',
    summary: 'A run (an id with `/` is URL-encoded)',
    ok: { status: 200, description: 'The run, its lease as the store has it now.', schema: runAnswer },
    errors: ['not-found', 'unavailable'],
  },
  sendEvent: {
    method: 'POST',
    path: '/api/runs/:id/events',
    summary: 'Send a run an event',
    body: sendEventBody,
    ok: { status: 200, description: 'The run, its committed snapshot.', schema: runAnswer },
    errors: ['invalid', 'too-large', 'unsupported-type', ...RUN_ERRORS],
  },
  endRun: {
    method: 'POST',
    path: '/api/runs/:id/end',
    summary: 'End a run that is set aside',
    description:
      'A run this host cannot restore (its `setAside` says why) is ended by a person: its snapshot and history are kept, its status becomes `stopped`, and the audit trail records who ended it and why, as `statewright end` does. A run the host can restore is refused (409 `RunNotSetAsideError`): send it the event that ends it instead.',
    body: endRunBody,
    ok: { status: 200, description: 'The ended run.', schema: runAnswer },
    errors: ['invalid', 'too-large', 'unsupported-type', ...RUN_ERRORS],
  },
  history: {
    method: 'GET',
    path: '/api/runs/:id/history',
    summary: "A run's committed steps",
    ok: { status: 200, description: 'Every committed step, oldest first.', schema: historyAnswer },
    errors: ['not-found', 'unavailable'],
  },
  explain: {
    method: 'GET',
    path: '/api/runs/:id/explain',
    summary: 'Why a run is where it is, and what moves it next',
    query: explainQuery,
    ok: { status: 200, description: 'The explanation.', schema: explanationAnswer },
    errors: ['not-found', 'invalid', 'unavailable'],
  },
  steps: {
    method: 'GET',
    path: '/api/steps',
    summary: 'Committed steps as server-sent events',
    description:
      'Each committed step as `event: step`, `id: <runId>:<seq>`, `data: { runId, machine, seq, event?, before?, after, status, at, run? }`; `event: resync` when the stream cannot replay what its client missed; a comment every 15 s keeps it open.',
    query: stepsQuery,
    ok: { status: 200, description: 'The step stream.', mediaType: 'text/event-stream' },
    errors: ['invalid'],
  },
} as const satisfies Record<string, ApiRoute>;

export type ApiRouteName = keyof typeof API_ROUTES;
