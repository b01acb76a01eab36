/**
 * The HTTP API of `statewright serve`, as the live view uses it. The view reads nothing else, so it
 * could be replaced without touching the runtime. The shapes follow the API contract in docs/hosting.md ("The HTTP API").
 */
import { authHeaders, viewClosed } from './view-session.js';

export interface Owner {
  id: string;
  pid: number;
  host: string;
}

export interface RunJson {
  runId: string;
  machine: string;
  version: number | string;
  status: string;
  state: string;
  seq: number;
  value: unknown;
  context: unknown;
  input: unknown;
  owner: Owner | null;
  /** The host that holds (or last held) the run, on a store with leases. */
  lease?: { holder: string; state: string; epoch: number } | null;
  createdAt: number | string;
  updatedAt: number | string;
  setAside?: { reason: string };
  verdict?: string;
  /** In a page of `GET /api/runs`: whether the run waits for a person (its explanation's `waitingFor`). */
  waitsForPerson?: boolean;
}

export interface MachineInfo {
  name: string;
  version: number | string;
  summary: string;
  initial: string;
  states: string[];
  terminalStates: string[];
  events: string[];
  /** The events a person may send: the view's buttons. */
  personEvents?: string[];
  /** Each final state's outcome (`done`, `failed`, `cancelled`, `skipped`): the lifecycle's, or read from its name. */
  outcomes?: Record<string, string>;
  /** By state, the events that end or cancel a run resting there (not an approval ending in a `done` outcome): the view asks before it sends them. */
  endingEvents?: Record<string, string[]>;
  /** What a run is started with, as JSON Schema: the start form's fields (absent: the input is asked for as JSON). */
  input?: JsonSchema;
}

/** This host, as `GET /api/host` tells it (the parts the view reads). */
export interface HostInfo {
  hostId: string;
  /** The kind of its store: a `memory` store's runs live in this process alone. */
  store?: string;
  /** How many hosts hold runs of the store now, this one included: above 1, the runs list names each run's owner. */
  hosts?: number;
}

export interface HistoryEntry {
  seq: number;
  event: { type: string; [field: string]: unknown };
  /** The event as a person reads it: XState's own events in words ("after 20 s"); absent from older servers. */
  label?: string;
  at: number | string;
  actor?: string;
  reason?: string;
  /** The credential its request showed, as serve names it (`user-token`, `session:<id>`): set by serve, not by the sender. */
  credential?: string;
  before: string;
  after: string;
}

export type EventTemplate = { type: string; [field: string]: unknown };

/** The subset of JSON Schema that zod 4's `z.toJSONSchema` produces for event metadata. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  description?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  default?: unknown;
}

export interface Accepted {
  type: string;
  needs: { fields: string[]; schema?: JsonSchema; roles?: string[] };
}

export interface WaitingFor {
  kind: 'approval' | 'question';
  id: string;
  summary: string;
  detail?: unknown;
  approve?: EventTemplate;
  deny?: EventTemplate;
}

export interface Explanation {
  runId: string;
  machine: string;
  state: string;
  status: string;
  since: number;
  accepts: Accepted[];
  /** What XState does for the run by itself, in words, and where it leads; absent from older servers. */
  movesOnItsOwn?: Array<{ event: string; label: string; to: string[] }>;
  deadlines: Array<{ name: string; at: number; event?: string; target?: string }>;
  /** Its live child actors by name: the ones it waits on, and the child machines it spawned beside it. */
  actors?: { awaited: string[]; spawned: string[] };
  owner: (Owner & { alive: boolean }) | null;
  /** A run on Restate: its virtual object and key, served by the worker (owner is null). */
  hostedOn?: { engine: 'restate'; object: string; key: string };
  lease?: { holder: string; expiresAt: number; lastHeartbeat: number };
  waitingFor?: WaitingFor[];
  agent?: { pid: number; alive: boolean; lastWriteAt: number };
  lastRefused?: { event: EventTemplate; error: string; message: string; at: number };
  setAside?: { reason: string };
  verdict: string;
}

/** A page of runs, newest first, and the cursor of the page after it (null: none). */
export interface RunPage {
  runs: RunJson[];
  next: string | null;
  /** With `waitsForPerson`: how many runs the server read to find the page's. */
  scanned?: number;
}

/** How many runs rest in each state, and their total (`/api/runs/counts`); `groups` by lifecycle, status and state. */
export interface RunCounts {
  counts: Record<string, number>;
  total: number;
  groups?: Array<{ machine: string; status: string; state: string; runs: number }>;
}

/** One committed step, as `/api/steps` streams it. */
export interface Step {
  runId: string;
  machine: string;
  seq: number;
  event?: EventTemplate;
  before?: string;
  after: string;
  status: string;
  at: number | string;
}

/** A refusal or failure from the server, carrying its typed error name and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(message);
    this.name = error;
  }
}

async function call<T>(path: string, init: RequestInit = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...(await authHeaders()) };
  if (init.body) headers['content-type'] = 'application/json';
  const response = await fetch(`api${path}`, { ...init, headers });
  const text = await response.text();
  const body = text ? safeJson(text) : undefined;
  if (!response.ok) {
    const { error, message } = (body ?? {}) as { error?: string; message?: string };
    if (response.status === 401) viewClosed(message ?? 'the server refused the view');
    throw new ApiError(response.status, error ?? `HTTP ${response.status}`, message ?? (text || response.statusText));
  }
  return body as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const query = (params: Record<string, string | number | undefined>) => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
};

export const api = {
  machines: () => call<{ machines: MachineInfo[] }>('/machines').then((r) => r.machines),
  host: () => call<HostInfo>('/host'),
  /** Starts a run (`POST /api/runs`), behind the same checks as any client's start; its id is the server's when left out. */
  start: (machine: string, options: { id?: string; input?: unknown } = {}) =>
    call<{ run: RunJson }>('/runs', { method: 'POST', body: JSON.stringify({ machine, ...options }) }).then(
      (r) => r.run,
    ),
  /** A page of runs: filtered, searched by run id (`q`) and paged (`cursor`: the `next` of the page before) by the server. */
  runs: (
    filter: {
      machine?: string;
      status?: string;
      state?: string;
      q?: string;
      limit?: number;
      cursor?: string;
      setAside?: boolean;
      /** Only the runs waiting for a person, found by the server a scan budget at a time. */
      waitsForPerson?: boolean;
    } = {},
  ) =>
    call<RunPage>(
      `/runs${query({
        ...filter,
        setAside: filter.setAside ? 'true' : undefined,
        waitsForPerson: filter.waitsForPerson ? 'true' : undefined,
      })}`,
    ),
  counts: (filter: { machine?: string } = {}) => call<RunCounts>(`/runs/counts${query(filter)}`),
  run: (id: string) => call<{ run: RunJson }>(`/runs/${encodeURIComponent(id)}`).then((r) => r.run),
  history: (id: string) =>
    call<{ events: HistoryEntry[] }>(`/runs/${encodeURIComponent(id)}/history`).then((r) => r.events),
  explain: (id: string) => call<Explanation>(`/runs/${encodeURIComponent(id)}/explain`),
  send: (id: string, event: EventTemplate, options: { actor?: string; reason?: string } = {}) =>
    call<{ run: RunJson }>(`/runs/${encodeURIComponent(id)}/events`, {
      method: 'POST',
      body: JSON.stringify({ event, ...options }),
    }).then((r) => r.run),
  /** Ends a run the server cannot restore (set aside), recording who and why. */
  endRun: (id: string, by: { actor?: string; reason: string }) =>
    call<{ run: RunJson }>(`/runs/${encodeURIComponent(id)}/end`, {
      method: 'POST',
      body: JSON.stringify(by),
    }).then((r) => r.run),
  diagram: async (machine: string, allEvents = false) => {
    const response = await fetch(
      `api/machines/${encodeURIComponent(machine)}/diagram.svg${allEvents ? '?events=all' : ''}`,
      {
        headers: await authHeaders(),
      },
    );
    if (!response.ok) {
      // The server's own error, when it sent one: an unknown lifecycle's says how to add it.
      const { error, message } = (safeJson(await response.text()) ?? {}) as { error?: string; message?: string };
      if (response.status === 401) viewClosed(message ?? 'the server refused the view');
      throw new ApiError(
        response.status,
        error ?? `HTTP ${response.status}`,
        message ?? `the diagram of ${machine} could not be loaded`,
      );
    }
    return response.text();
  },
};
