/**
 * The HTTP API of `statewright serve` (routes in docs/hosting.md, "The HTTP API"), as a hono app on a
 * hosted runtime: JSON in and out, typed errors as `{ error, message }` with a fitting status,
 * committed steps as server-sent events, and the live view's files at `/`.
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import { explainRun } from '../explain/index.js';
import { drawStatechart } from '../graph/statechart-svg.js';
import { actorWords, eventWords } from '../graph/event-words.js';
import { statusNote } from '../explain/status-note.js';
import { isProcessAlive } from '../os/process-identity.js';
import type { Lifecycles } from '../../machines/lifecycle.js';
import { InvalidArgumentError, UnknownMachineError, type Runtime, type RunSnapshot } from '../runtime/index.js';
import { toRunSnapshot } from '../runtime/run-snapshot.js';
import { approvalRefusal } from '../session/approval-refusal.js';
import { setAsideReasonOn } from '../runtime/set-aside.js';
import { pageOf, type RunCursor, type RunFilter, type RunPage, type RunPageQuery } from '../stores/store.js';
import { API_ROUTES } from './api-routes.js';
import {
  DEFAULT_PAGE_SIZE,
  diagramQuery,
  explainQuery,
  runFilterQuery,
  runPageQuery,
  WAITING_SCAN_BUDGET,
} from './api-schemas.js';
import { browserGuard, type BrowserGuardOptions } from './browser-guard.js';
import type { ConfigStatus } from './config-reload.js';
import { errorBody, errorStatus } from './error-response.js';
import { machineJson, personEvents } from './machine-json.js';
import { openApiDocument } from './openapi.js';
import { runJson } from './run-json.js';
import { decodeCursor, encodeCursor } from './run-cursor.js';
import {
  BodyTooLargeError,
  NoCredentialsError,
  NotATaskRunError,
  QueryParameterError,
  RequestBodyError,
} from './serve-errors.js';
import type { StepStreams } from './step-stream.js';
import {
  checkScopedEvent,
  credentialOf,
  CredentialScopeError,
  ScopedCredentials,
  scopedCredentials,
  sentBy,
  USER_TOKEN,
} from './scoped-credential.js';
import { newToken } from './serve-token.js';
import { isNavigation, OPEN_THE_VIEW_PAGE, tokenAuth } from './token-auth.js';
import { uiFile } from './ui-files.js';
import { dropUnreadBody } from './unread-body.js';
import { viewHeaders } from './view-headers.js';
import { ViewSessions } from './view-sessions.js';
import { liveHolders } from '../explain/shared-hosts.js';

/** The most a request body may hold: events and inputs are small; big data belongs in files. */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface ApiOptions {
  readonly runtime: Runtime;
  /** How a run is started (the lifecycle host fills in what it knows). */
  readonly start: (machine: string, options: { id?: string; input?: unknown }) => Promise<RunSnapshot>;
  readonly steps: StepStreams;
  /** Required on every request when set (see token-auth.ts for how a client shows it). */
  readonly token?: string;
  /** Which hosts and origins may reach the server (see browser-guard.ts). */
  readonly guard: BrowserGuardOptions;
  /** The built live view (see ui-files.ts). */
  readonly uiDir: string;
  /** How this host holds its runs, for `GET /api/host`: its lease TTL (none without leases) and hibernation. */
  readonly hosting?: { readonly leaseTtlMs: number | undefined; readonly hibernateAfterMs: number | false };
  /** The config serve runs and the error of its last reload, for `GET /api/host`; none: the built-in lifecycles alone. */
  readonly config?: () => ConfigStatus | undefined;
}

const START_EXAMPLE = '{"machine":"execution","id":"job-1","input":{}}';
const END_EXAMPLE = '{"reason":"its definition was removed; started again as job-2","actor":"alice"}';
const CREDENTIAL_EXAMPLE = '{"run":"task","agent":"executor:claude:1"}';
const EVENT_EXAMPLE = '{"event":{"type":"ENQUEUE"},"actor":"alice","reason":"ready","idempotencyKey":"job-1:enqueue"}';

export function apiApp(options: ApiOptions): Hono {
  const { runtime, steps } = options;
  const app = new Hono();
  const diagrams = new Map<string, Promise<string>>();
  const lifecycles: Lifecycles = runtime.machines;

  app.onError((error, c) => {
    const status = errorStatus(error);
    // A browser sent to an API address without its credential (an old link, a restart since): how to open the view.
    if (status === 401 && isNavigation(c)) return c.html(OPEN_THE_VIEW_PAGE, 401);
    return c.json(errorBody(error), status);
  });
  app.use('*', viewHeaders());
  app.use('*', browserGuard(options.guard));
  // Before the token: the description says nothing of the runs, and tools fetch it without one.
  const description = openApiDocument({ token: options.token !== undefined });
  app.get(API_ROUTES.openapi.path, (c) => c.json(description));
  // Without a token (`--no-token`) nothing checks a credential: the view gets one it never needs.
  const views = new ViewSessions(options.token ?? newToken());
  const credentials = options.token ? new ScopedCredentials(options.token) : undefined;
  if (options.token && credentials) {
    // A scoped credential (an agent's) is checked and held to its scope first; the token check
    // (serve's token, or the live view's credential) is for the rest.
    const auth = tokenAuth(options.token, views);
    app.use('*', scopedCredentials(credentials));
    app.use('*', (c, next) => (c.get('credential') ? next() : auth(c, next)));
  }
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: async (c) => {
        // Answered once the client has sent it all (see unread-body.ts), else on a connection closed after.
        if (!(await dropUnreadBody(c.req.raw))) c.header('connection', 'close');
        throw new BodyTooLargeError(MAX_BODY_BYTES);
      },
    }),
  );

  app.post(API_ROUTES.viewSession.path, (c) => c.json(views.issue(), 201));

  app.post(API_ROUTES.credentials.path, async (c) => {
    if (!credentials) throw new NoCredentialsError();
    // The user's token alone: neither an agent's credential nor the view's per-tab one gives out another.
    const sender = sentBy(c, true);
    if (sender !== USER_TOKEN) throw new CredentialScopeError(credentialOf(c), 'giving out a credential', sender);
    const { run: runId, agent } = await jsonBody(c, API_ROUTES.credentials.body, CREDENTIAL_EXAMPLE);
    const run = await runtime.getSnapshot(runId); // an unknown run is a 404
    if (run.machine !== 'task') throw new NotATaskRunError(runId, run.machine);
    const credential = credentials.forRole(runId, agent);
    return c.json({ credential, holder: `role:${agent}@${runId}` }, 201);
  });

  app.get(API_ROUTES.host.path, async (c) => {
    const { id, pid, host } = runtime.owner;
    const leases = runtime.store.leases;
    // One statement over the held leases, whatever the number of runs: how many this host holds now,
    // and how many hosts hold runs (this one always counts: it may hold none yet).
    const holders = leases ? await leases.holders() : [];
    const held = leases ? (holders.find((h) => h.owner.id === id)?.runs ?? 0) : null;
    // A holder whose process on this machine ended holds nothing any more (shared-hosts.ts, as status and explain count).
    const hosts = new Set([id, ...liveHolders(holders)]).size;
    return c.json({
      hostId: id,
      pid,
      host,
      leases: leases !== undefined,
      leaseTtlMs: options.hosting?.leaseTtlMs ?? null,
      hibernateAfterMs: options.hosting?.hibernateAfterMs ?? false,
      held,
      store: runtime.store.kind,
      hosts,
      config: options.config?.() ?? builtInsOnly(lifecycles),
    });
  });

  app.get(API_ROUTES.machines.path, (c) =>
    c.json({ machines: Object.entries(lifecycles).map(([name, lifecycle]) => machineJson(name, lifecycle)) }),
  );

  app.get(API_ROUTES.diagram.path, async (c) => {
    const name = c.req.param('name');
    const lifecycle = Object.hasOwn(lifecycles, name) ? lifecycles[name] : undefined;
    if (!lifecycle) throw new UnknownMachineError(name, Object.keys(lifecycles));
    const { events } = parseQuery(c, diagramQuery);
    const key = `${name}\u0000${events ?? 'quiet'}`;
    let svg = diagrams.get(key);
    if (!svg) {
      // The events no person sends are drawn quietly, unless the view asks for every one.
      const person = new Set(personEvents(lifecycle));
      const options = events === 'all' ? {} : { quiet: (type: string) => !person.has(type) };
      svg = drawStatechart(lifecycle.machine, options).then(({ svg, fallback }) => {
        // The view still gets a chart to mark runs on; the operator learns why it is the simpler one.
        if (fallback !== undefined)
          runtime.log('', 'warn', `the diagram of '${name}' is the simpler drawing: its layout failed (${fallback})`);
        return svg;
      });
      diagrams.set(key, svg);
    }
    c.header('content-type', 'image/svg+xml');
    return c.body(await svg);
  });

  // Why each run is set aside, checked once per step of it (`setAsideReasonOn`): a restart's runs sleep in
  // the store, so the host's own list starts empty, and the view must still say which it cannot restore.
  const restoreChecks = new Map<string, { seq: number; reason: string | undefined }>();
  const setAsideReason = (run: RunSnapshot): string | undefined => {
    if (run.status !== 'active') return undefined;
    const checked = restoreChecks.get(run.runId);
    if (checked?.seq === run.seq) return checked.reason;
    const reason = setAsideReasonOn(runtime, run, Date.now());
    // The host's own finding is its to drop (an end, a restore); only the store's rule is remembered.
    if (!runtime.setAside().some((entry) => entry.runId === run.runId))
      restoreChecks.set(run.runId, { seq: run.seq, reason });
    return reason;
  };

  app.get(API_ROUTES.listRuns.path, async (c) => {
    const { setAside: onlySetAside, waitsForPerson, ...query } = pageQuery(c);
    // `?setAside=true`: only the runs this host cannot restore (the lifecycle view lists them), a
    // list this host keeps in memory; every other page is the store's, from its index.
    const read = (q: RunPageQuery) => (onlySetAside ? setAsidePage(runtime, setAsideReason, q) : runtime.listPage(q));
    // Each with the explain verdict (what will move it next, as the Runs view shows it) and whether
    // it waits for a person (its explanation's `waitingFor`): for the page's runs only.
    const explain = (run: RunSnapshot) =>
      explainRun(runtime, run.runId).then(
        (x) => ({ verdict: x.verdict, waitsForPerson: (x.waitingFor?.length ?? 0) > 0 }),
        (error: Error) => ({ verdict: `cannot explain: ${error.message}`, waitsForPerson: false }),
      );
    // `note` and `ownerAlive`: what `statewright status` prints of a run through this serve (its NOTE, a gone owner).
    const show = (run: RunSnapshot, explained: Explained) => {
      const note = statusNote(runtime.machines, run, Date.now());
      return {
        ...runJson(run, setAsideReason(run)),
        ...explained,
        ...(note !== undefined && { note }),
        ...(run.owner && { ownerAlive: run.owner.id === runtime.owner.id || isProcessAlive(run.owner) }),
      };
    };
    if (waitsForPerson) {
      // Only live runs wait: `status` is `active` unless the caller says otherwise.
      const page = await waitingPage(read, explain, { ...query, status: query.status ?? 'active' });
      return c.json({
        runs: page.runs.map(([run, explained]) => show(run, explained)),
        next: page.next && encodeCursor(page.next),
        scanned: page.scanned,
      });
    }
    const page = await read(query);
    const explained = await Promise.all(page.runs.map(explain));
    return c.json({
      runs: page.runs.map((run, i) => show(run, explained[i]!)),
      next: page.next && encodeCursor(page.next),
    });
  });

  // Before `/api/runs/:id`, which it would otherwise be taken for.
  app.get(API_ROUTES.countRuns.path, async (c) => c.json(await runtime.countRuns(runFilter(c))));

  app.post(API_ROUTES.startRun.path, async (c) => {
    const body = await jsonBody(c, API_ROUTES.startRun.body, START_EXAMPLE);
    const run = await options.start(body.machine, {
      ...(body.id !== undefined && { id: body.id }),
      ...(body.input !== undefined && { input: body.input }),
    });
    return c.json({ run: runJson(run) }, 201);
  });

  app.get(API_ROUTES.getRun.path, async (c) => {
    const id = c.req.param('id');
    return c.json({
      run: await (async () => {
        const run = await withStoredLease(runtime, await runtime.getSnapshot(id));
        return runJson(run, setAsideReason(run));
      })(),
    });
  });

  app.post(API_ROUTES.sendEvent.path, async (c) => {
    const { event, ...sendOptions } = await jsonBody(c, API_ROUTES.sendEvent.body, EVENT_EXAMPLE);
    checkScopedEvent(credentialOf(c), event, sendOptions.idempotencyKey);
    // Who sent it, by its credential: beside the actor the request names, never from the request.
    const id = c.req.param('id');
    const run = await runtime
      .dispatch(id, event, { ...sendOptions, credential: sentBy(c, options.token !== undefined) })
      .catch(async (error) => {
        throw await approvalRefusal(runtime, id, event, error);
      });
    return c.json({ run: runJson(run) });
  });

  app.post(API_ROUTES.endRun.path, async (c) => {
    const { reason, actor } = await jsonBody(c, API_ROUTES.endRun.body, END_EXAMPLE);
    const run = await runtime.endSetAside(c.req.param('id'), {
      actor: actor ?? 'api',
      reason,
      credential: sentBy(c, options.token !== undefined),
    });
    return c.json({ run: runJson(run) });
  });

  app.get(API_ROUTES.history.path, async (c) => {
    const id = c.req.param('id');
    const run = await runtime.getSnapshot(id); // an unknown run is a 404, not an empty history
    const machine = Object.hasOwn(runtime.machines, run.machine) ? runtime.machines[run.machine]!.machine : undefined;
    const events = (await runtime.history(id)).map(
      ({ seq, event, at, actor, reason, credential, idempotencyKey, before, after }) => ({
        seq,
        event,
        label: eventWords(machine, event.type),
        at,
        ...(actor !== undefined && { actor }),
        // XState's own moves name their actor as the run knows it (an invoke by its actor's name), as `statewright history` prints it.
        ...(actor !== undefined && actor !== 'xstate' && { actorLabel: actorWords(machine, actor) }),
        ...(reason !== undefined && { reason }),
        ...(credential !== undefined && { credential }),
        ...(idempotencyKey !== undefined && { idempotencyKey }),
        before,
        after,
      }),
    );
    return c.json({ events });
  });

  app.get(API_ROUTES.explain.path, async (c) => {
    const { verbose } = parseQuery(c, explainQuery);
    return c.json(await explainRun(runtime, c.req.param('id'), { verbose: verbose === 'true' }));
  });

  app.get('/api/steps', (c) => steps.respond(c));

  app.all('/api/*', (c) =>
    c.json(
      {
        error: 'NotFound',
        message: `No route ${c.req.method} ${c.req.path}: the API's routes are listed in docs/hosting.md ("The HTTP API") and described at GET /api/openapi.json.`,
      },
      404,
    ),
  );

  app.get('*', (c) => {
    const file = uiFile(options.uiDir, c.req.path);
    if (!file) return c.text('Not found', 404);
    return c.body(typeof file.body === 'string' ? file.body : new Uint8Array(file.body), 200, {
      'content-type': file.type,
    });
  });

  return app;
}

/**
 * The run with its lease and next deadline as the store has them now: renewals move a lease without
 * a commit, so a hosted run's last committed row is not where its heartbeat is.
 */
async function withStoredLease(runtime: Runtime, run: RunSnapshot): Promise<RunSnapshot> {
  if (!runtime.store.leases) return run;
  const stored = await runtime.store.load(run.runId);
  const { lease: _lease, wakeAt: _wakeAt, ...rest } = run;
  return {
    ...rest,
    ...(stored?.lease && { lease: stored.lease }),
    ...(stored?.wakeAt !== undefined && { wakeAt: stored.wakeAt }),
  };
}

/** The list's filter from the query; an unknown status is refused (422). */
function runFilter(c: Context): RunFilter {
  return parseQuery(c, runFilterQuery);
}

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './api-schemas.js';

/** A page of `GET /api/runs`: its filter, search (`q`), size (`limit`), where it goes on from (`cursor`), and `setAside`. */
function pageQuery(c: Context): RunPageQuery & { setAside: boolean; waitsForPerson: boolean } {
  const { cursor, limit, setAside, waitsForPerson, ...filter } = parseQuery(c, runPageQuery);
  return {
    ...filter,
    limit: limit ?? DEFAULT_PAGE_SIZE,
    ...(cursor !== undefined && { after: decodeCursor(cursor) }),
    setAside: setAside === 'true',
    waitsForPerson: waitsForPerson === 'true',
  };
}

const QUERY_EXAMPLES: Record<string, string> = {
  status: '/api/runs?status=active',
  limit: '/api/runs?limit=50',
  waitsForPerson: '/api/runs?waitsForPerson=true',
};

/** The query parsed by its schema (a value left empty counts as left out); the first problem refused (422), naming its parameter. */
function parseQuery<S extends z.ZodObject>(c: Context, schema: S): z.output<S> {
  const given = Object.fromEntries(Object.entries(c.req.query()).filter(([, value]) => value !== ''));
  const parsed = schema.safeParse(given);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const parameter = String(issue.path[0]);
  throw new QueryParameterError(
    parameter,
    given[parameter] ?? '',
    issue.message,
    QUERY_EXAMPLES[parameter] ?? '/api/runs',
  );
}

interface Explained {
  verdict: string;
  waitsForPerson: boolean;
}

/** How many runs a waiting page reads from the store at a time, within `WAITING_SCAN_BUDGET`. */
const SCAN_CHUNK = 100;

/**
 * A page of `?waitsForPerson=true`: the runs of `query` read newest first and explained, those
 * waiting for a person kept, until `limit` are kept or `WAITING_SCAN_BUDGET` runs are read; `next`
 * is where the reading stopped (null only when no run is left), `scanned` how many it read.
 */
async function waitingPage(
  read: (query: RunPageQuery) => Promise<RunPage<RunSnapshot>>,
  explain: (run: RunSnapshot) => Promise<Explained>,
  query: RunPageQuery,
): Promise<{ runs: Array<[RunSnapshot, Explained]>; next: RunCursor | null; scanned: number }> {
  const runs: Array<[RunSnapshot, Explained]> = [];
  let scanned = 0;
  let after = query.after;
  for (;;) {
    const page = await read({ ...query, limit: Math.min(SCAN_CHUNK, WAITING_SCAN_BUDGET - scanned), after });
    const explained = await Promise.all(page.runs.map(explain));
    for (const [i, run] of page.runs.entries()) {
      scanned++;
      if (explained[i]!.waitsForPerson) runs.push([run, explained[i]!]);
      const stop = runs.length >= query.limit || scanned >= WAITING_SCAN_BUDGET;
      // Stopped before the page's last run: the next page goes on after this one.
      if (stop && i < page.runs.length - 1)
        return { runs, next: { createdAt: run.createdAt, runId: run.runId }, scanned };
      if (stop) return { runs, next: page.next, scanned };
    }
    if (!page.next) return { runs, next: null, scanned };
    after = page.next;
  }
}

/** `GET /api/host`'s config of a serve that read no config file: what it hosts, nothing to reload. */
function builtInsOnly(lifecycles: Lifecycles): ConfigStatus {
  return {
    file: null,
    hash: null,
    inputs: [],
    loadedAt: null,
    lifecycles: Object.fromEntries(Object.entries(lifecycles).map(([name, lifecycle]) => [name, lifecycle.version])),
    reloads: 0,
    error: null,
  };
}

/** A page of the runs this host set aside, read from the store one by one (they are few) and paged as the store pages. */
/**
 * A page of the runs this host cannot restore: its own set-aside runs, and the active runs of the
 * page's filter that it would set aside when it came across them (`setAsideReasonOn`).
 */
async function setAsidePage(
  runtime: Runtime,
  setAsideReason: (run: RunSnapshot) => string | undefined,
  query: RunPageQuery,
): Promise<RunPage<RunSnapshot>> {
  const known = await Promise.all(runtime.setAside().map((entry) => runtime.store.load(entry.runId)));
  const { after: _after, limit: _limit, q: _q, ...filter } = query;
  const active =
    filter.status === undefined || filter.status === 'active'
      ? await runtime.list({ ...filter, status: 'active' })
      : [];
  const byId = new Map<string, RunSnapshot>();
  for (const run of [...known.filter((run) => run !== undefined).map(toRunSnapshot), ...active])
    if (setAsideReason(run) !== undefined) byId.set(run.runId, run);
  return pageOf([...byId.values()], query, (run) => run);
}

const SEND_OPTIONS = new Set(['actor', 'reason', 'idempotencyKey']);

/** The body as JSON, parsed by the route's schema: its first problem refused (422) with an example. */
async function jsonBody<S extends z.ZodType>(c: Context, schema: S, example: string): Promise<z.output<S>> {
  const text = await c.req.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new RequestBodyError(`not JSON (${(error as Error).message})`, example);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new RequestBodyError('expected a JSON object', example);
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = String(issue.path[0]);
  // A send option is refused as the runtime refuses it (`checkSendOptions`).
  if (SEND_OPTIONS.has(field))
    throw new InvalidArgumentError(`option '${field}'`, (body as Record<string, unknown>)[field], 'a non-empty string');
  throw new RequestBodyError(issue.message, example);
}
