/**
 * The view's credential. serve prints the view's URL with its token in the fragment
 * (`/#token=...`), which the browser sends to no server. This script takes it off the address bar
 * (out of the history too), trades it for a per-tab credential (`POST api/view-session`) and sends
 * that as `Authorization: View <credential>` on every call; no cookie, so no other server on
 * 127.0.0.1 (cookies ignore ports) receives anything of the view's.
 *
 * The token itself is kept nowhere. The credential is kept in this tab's sessionStorage, so a
 * reload goes on working: sessionStorage belongs to this origin (port included) and this tab, and
 * the view runs no script but its own (serve's Content-Security-Policy), so what reads it is what
 * already holds it. It lapses on its own (30 min): while the page is open it is traded for a fresh
 * one every few minutes; a tab asleep longer, or a serve started with another token, shows how to
 * open the view again (`statewright open`).
 */
import { useEffect, useState } from 'preact/hooks';

const KEY = 'statewright-view-credential';
/** How often the open page trades its credential for a fresh one: a sixth of its life (serve says how long). */
const RENEW_FRACTION = 6;

let credential: string | undefined = sessionStorage.getItem(KEY) ?? undefined;
/** Why the view cannot call its server (a stale or missing token), once it is known; undefined while it can. */
let closed: string | undefined;
const closedListeners = new Set<(why: string | undefined) => void>();

/** The trade of a token from the address bar under way, if one is: calls wait for its credential. */
let opening: Promise<void> | undefined;

/**
 * The header every call of the view carries (none with a serve started `--no-token`), once the
 * trade of a token pasted into the address bar is done: a call meanwhile would carry the credential
 * before it, which a serve started with another token refuses (and the view would close).
 */
export async function authHeaders(): Promise<Record<string, string>> {
  while (opening) await opening.catch(() => {});
  return credential ? { authorization: `View ${credential}` } : {};
}

/** The view's calls are refused (401): it shows how to open it again, and stops calling. */
export function viewClosed(why: string) {
  if (closed !== undefined) return;
  closed = why;
  credential = undefined;
  sessionStorage.removeItem(KEY);
  for (const listener of closedListeners) listener(why);
}

/** Why the view is closed, as state: undefined while it works. */
export function useClosed(): string | undefined {
  const [why, setWhy] = useState(closed);
  useEffect(() => {
    closedListeners.add(setWhy);
    setWhy(closed);
    return () => void closedListeners.delete(setWhy);
  }, []);
  return why;
}

async function trade(header: string): Promise<void> {
  const response = await fetch('api/view-session', {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json', authorization: header },
    body: '{}',
  });
  if (response.status === 401) {
    const { message } = (await response.json().catch(() => ({}))) as { message?: string };
    return viewClosed(message ?? 'the token was refused');
  }
  if (!response.ok) throw new Error(`the view's session could not be opened: HTTP ${response.status}`);
  const answer = (await response.json()) as { credential: string; lifetimeMs: number };
  credential = answer.credential;
  sessionStorage.setItem(KEY, credential);
  renewEvery(answer.lifetimeMs / RENEW_FRACTION);
  if (closed !== undefined) {
    // Opened again in this tab through its URL: the views come back.
    closed = undefined;
    for (const listener of closedListeners) listener(undefined);
  }
}

let renewal: ReturnType<typeof setInterval> | undefined;
function renewEvery(ms: number) {
  if (renewal !== undefined) return;
  // A failed renewal (serve down for a moment) is tried again at the next tick; a refusal closes the view.
  renewal = setInterval(() => {
    if (closed !== undefined) return clearInterval(renewal);
    if (credential) trade(`View ${credential}`).catch(() => {});
  }, ms);
}

/**
 * Opens the view's session before anything is called: the fragment's token traded for a
 * credential, or the one this tab kept renewed. Resolves either way; `useClosed` says if it failed.
 */
export async function openSession(): Promise<void> {
  // The view's URL pasted into a tab that shows the view already: only the fragment changes.
  addEventListener('hashchange', () => void tradeFragment()?.catch((error: Error) => console.error(error)));
  const traded = tradeFragment();
  if (traded) return traded;
  if (credential) return trade(`View ${credential}`);
}

/** The token of the address bar's fragment taken off it and traded, if there is one. */
function tradeFragment(): Promise<void> | undefined {
  const token = location.hash.match(/^#token=([^&]+)$/)?.[1];
  if (token === undefined) return undefined;
  history.replaceState(history.state, '', `${location.pathname}${location.search}#/`);
  const traded = trade(`Bearer ${decodeURIComponent(token)}`);
  opening = traded;
  const done = () => {
    if (opening === traded) opening = undefined;
  };
  traded.then(done, done);
  return traded;
}
