/**
 * The live view's address for a person: serve's URL with its token in the fragment
 * (`http://127.0.0.1:4680/#token=...`). A browser sends no fragment to any server, so the token
 * reaches only the view's own script, which trades it for a per-tab credential (view-sessions.ts)
 * and takes it off the address bar. Printed by serve and `statewright open`.
 */
export function viewUrl(url: string, token: string | undefined | null): string {
  const base = url.replace(/\/+$/, '');
  return token ? `${base}/#token=${token}` : `${base}/`;
}
