/** What the view shows when its server refuses it (a stale or missing token): how to open it again. */
export function OpenTheView({ why }: { why: string }) {
  return (
    <main class="open-the-view">
      <h1>Open the live view through its link</h1>
      <p>
        This page needs the link <code>statewright serve</code> printed when it started (
        <code>http://127.0.0.1:&lt;port&gt;/#token=...</code>). The link used here has no token, or an old one (serve
        was started again since, or the view's session lapsed).
      </p>
      <p>
        Run <code>npx statewright open</code> in the project's folder (or{' '}
        <code>npx statewright open --store &lt;store&gt;</code>
        ): it prints the link from the server file beside the store, readable only by the user who started serve;{' '}
        <code>npx statewright open --browser</code> opens it.
      </p>
      <p class="why">The server said: {why}</p>
    </main>
  );
}
