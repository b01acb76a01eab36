/**
 * The credentials serve gives what it launches, so that no agent holds the user's token: each
 * session's agent (and the `statewright mcp` it starts, which inherits its environment) gets one
 * scoped to its own session. It may ask for approvals on that session (`APPROVAL_REQUESTED`), read
 * that session and follow its steps (the `approve` tool's wait for the decision), and nothing else:
 * it resolves no approval, starts, ends or moves no run, reads no other run. A person's decision
 * takes the user's token (see docs/security.md).
 *
 * Derived, never stored: `sw-session.<id>.<mac>`, the mac an HMAC-SHA256 of the session id under a
 * key derived from serve's token. serve keeps nothing per run, a serve restarted with the same
 * token accepts the credentials the last one gave (its agents keep running across a hand-over),
 * and a new token voids them all. Checked in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { StatewrightError } from '../errors.js';
import { roleEventRefusal } from './role-scope.js';

/** Who a request acts as, from the credential it showed (never from its body): what the audit trail records. */
export type CredentialHolder =
  | { readonly kind: 'user-token' }
  | { readonly kind: 'session'; readonly sessionId: string }
  /** A task agent's role on one task run (role-scope.ts): what a person gave it with the user's token. */
  | { readonly kind: 'role'; readonly runId: string; readonly agent: string };

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by `scopedCredentials` for a request that showed a scoped credential; unset: the user's token. */
    credential: CredentialHolder;
  }
}

const SESSION_PREFIX = 'sw-session.';
const ROLE_PREFIX = 'sw-role.';
/** What a session's credential may send to its own session: its agent's requests for approval. */
const SESSION_EVENTS: ReadonlySet<string> = new Set(['APPROVAL_REQUESTED']);
/** The idempotency keys those requests use (approval-request.ts): no other key of the run can be taken first. */
const SESSION_KEY_PREFIX = 'approval-requested:';

/** What the audit trail records for a request to a serve started with `--no-token`: it showed none, and anyone local could send it. */
export const NO_TOKEN = 'no-token';
/** What it records for a request of the live view: its per-tab credential (token-auth.ts checked it), traded for the token. */
export const VIEW = 'view';
/** What it records for a request that showed the user's token itself. */
export const USER_TOKEN = 'user-token';

/** How a holder is named in the audit trail and in refusals: `user-token`, `session:<id>`, `role:<agent>@<run>`. */
export const holderName = (holder: CredentialHolder): string =>
  holder.kind === 'session'
    ? `session:${holder.sessionId}`
    : holder.kind === 'role'
      ? `role:${holder.agent}@${holder.runId}`
      : USER_TOKEN;

const SCOPES = {
  session: 'may only ask for approvals on its own session and read it',
  role: 'may only send its own agent’s events of its role to its own task run and read it',
} as const;

/** A scoped credential used beyond its scope. */
export class CredentialScopeError extends StatewrightError {
  readonly kind = 'forbidden';
  override readonly name = 'CredentialScopeError';
  readonly holder: string;
  /** `name`: how the audit trail names the sender, where it is not the holder's name (`view`). */
  constructor(holder: CredentialHolder, attempted: string, name = holderName(holder)) {
    super(
      `Refused ${attempted}: this credential (${name}) ${holder.kind === 'user-token' ? 'is not the user’s token' : SCOPES[holder.kind]}. ` +
        (holder.kind === 'role'
          ? 'Another agent’s or role’s events, other runs, starting runs and giving out credentials take that agent’s own credential or the user’s token ' +
            '(`statewright task credential --as <agent>` gives one).'
          : 'Resolving an approval, starting, ending or sending other events, and reading other runs take the user’s token: ' +
            'a person decides in the live view, with `statewright send`, or through the API with the token serve printed.'),
    );
    this.holder = name;
  }
}

export class ScopedCredentials {
  readonly #key: Buffer;

  constructor(token: string) {
    // A key of its own, so a credential's mac is never a use of the token itself.
    this.#key = createHmac('sha256', token).update('statewright scoped credential key v1').digest();
  }

  /** The credential of session `sessionId`'s agent. */
  forSession(sessionId: string): string {
    return `${SESSION_PREFIX}${Buffer.from(sessionId).toString('base64url')}.${this.#mac(`session:${sessionId}`)}`;
  }

  /** The credential of task agent `agent` on task run `runId`: it acts as that agent, on that run only. */
  forRole(runId: string, agent: string): string {
    return `${ROLE_PREFIX}${encode(runId)}.${encode(agent)}.${this.#mac(roleSubject(runId, agent))}`;
  }

  /** The holder `sent` names if serve gave it out; undefined for anything else. */
  verify(sent: string): CredentialHolder | undefined {
    if (sent.startsWith(SESSION_PREFIX)) {
      const [encoded, mac, ...rest] = sent.slice(SESSION_PREFIX.length).split('.');
      if (encoded === undefined || mac === undefined || rest.length) return undefined;
      const sessionId = decode(encoded);
      return this.#macMatches(`session:${sessionId}`, mac) ? { kind: 'session', sessionId } : undefined;
    }
    if (sent.startsWith(ROLE_PREFIX)) {
      const [run, agent, mac, ...rest] = sent.slice(ROLE_PREFIX.length).split('.');
      if (run === undefined || agent === undefined || mac === undefined || rest.length) return undefined;
      const [runId, agentId] = [decode(run), decode(agent)];
      return this.#macMatches(roleSubject(runId, agentId), mac) ? { kind: 'role', runId, agent: agentId } : undefined;
    }
    return undefined;
  }

  #macMatches(subject: string, mac: string): boolean {
    const expected = Buffer.from(this.#mac(subject));
    const given = Buffer.from(mac);
    // Lengths first (a mac's length is no secret), then the bytes in constant time.
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  #mac(subject: string): string {
    return createHmac('sha256', this.#key).update(subject).digest('base64url');
  }
}

const encode = (text: string) => Buffer.from(text).toString('base64url');
const decode = (encoded: string) => Buffer.from(encoded, 'base64url').toString();
/** What a role credential's mac is of: both parts, unambiguously (neither can be shifted into the other). */
const roleSubject = (runId: string, agent: string) => `role:${JSON.stringify([runId, agent])}`;

/** Whether a bearer credential is a scoped one (else it is checked as the user's token). */
export const isScopedCredential = (sent: string): boolean =>
  sent.startsWith(SESSION_PREFIX) || sent.startsWith(ROLE_PREFIX);

/** Whether a bearer credential is a task role's (`statewright mcp --task` goes through serve with one). */
export const isRoleCredential = (sent: string): boolean => sent.startsWith(ROLE_PREFIX);

/**
 * In front of the token check: a request whose `Authorization: Bearer` is a scoped credential is
 * checked here, held to its scope (403 `CredentialScopeError` beyond it) and marked with its holder.
 * Any other request, and a scoped credential serve did not give out, goes on to the token check
 * (which refuses it as a wrong token).
 */
export function scopedCredentials(credentials: ScopedCredentials): MiddlewareHandler {
  return async (c, next) => {
    const sent = c.req.header('authorization')?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    if (sent === undefined || !isScopedCredential(sent)) return next();
    const holder = credentials.verify(sent);
    if (!holder) return next();
    const runId = holder.kind === 'session' ? holder.sessionId : holder.kind === 'role' ? holder.runId : undefined;
    if (runId !== undefined && !ownRunMayReach(c, runId))
      throw new CredentialScopeError(holder, `${c.req.method} ${new URL(c.req.url).pathname}`);
    c.set('credential', holder);
    return next();
  };
}

const RUN_PATH = /^\/api\/runs\/([^/]+)(?:\/(history|explain|events))?$/;

/** The routes a scoped credential reaches: its own run's reads, its step stream, and sending to it (the event is checked by `checkScopedEvent`). */
function ownRunMayReach(c: Context, ownRunId: string): boolean {
  const { method } = c.req;
  const path = new URL(c.req.url).pathname;
  if (method === 'GET' && path === '/api/steps') return c.req.query('run') === ownRunId;
  const match = RUN_PATH.exec(path);
  if (!match) return false;
  let runId: string;
  try {
    runId = decodeURIComponent(match[1]!);
  } catch {
    return false;
  }
  if (runId !== ownRunId) return false;
  return method === 'GET' ? match[2] !== 'events' : method === 'POST' && match[2] === 'events';
}

/** The holder of the request's credential: a scoped one's, else the user's token. */
export const credentialOf = (c: Context): CredentialHolder => c.get('credential') ?? { kind: 'user-token' };

/**
 * Who sent a request that passed the checks, for the audit trail (`EventRecord.credential`):
 * `session:<id>` (a scoped credential), `view` (the live view's credential), `user-token` (the
 * token itself), or `no-token` on a serve that takes none. From the credential, never the body.
 */
export function sentBy(c: Context, takesToken: boolean): string {
  if (!takesToken) return NO_TOKEN;
  const holder = credentialOf(c);
  if (holder.kind === 'user-token' && /^View\s/i.test(c.req.header('authorization') ?? '')) return VIEW;
  return holderName(holder);
}

/** An event sent with a scoped credential: only the events its scope names, only with their idempotency keys. */
export function checkScopedEvent(
  holder: CredentialHolder,
  event: { readonly type: string; readonly [field: string]: unknown },
  idempotencyKey: string | undefined,
): void {
  if (holder.kind === 'user-token') return;
  if (holder.kind === 'role') {
    const refused = roleEventRefusal(holder, event, idempotencyKey);
    if (refused !== undefined) throw new CredentialScopeError(holder, refused);
    return;
  }
  if (!SESSION_EVENTS.has(event.type))
    throw new CredentialScopeError(holder, `the event ${JSON.stringify(event.type)}`);
  if (idempotencyKey !== undefined && !idempotencyKey.startsWith(SESSION_KEY_PREFIX))
    throw new CredentialScopeError(
      holder,
      `the idempotency key ${JSON.stringify(idempotencyKey)} (a request for approval's key starts with ${SESSION_KEY_PREFIX})`,
    );
}
