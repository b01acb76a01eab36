/**
 * The page the inspector bridge serves: the Stately inspector (a page of stately.ai, on the
 * internet) in a frame, fed the inspection events this page reads from the bridge's websocket, as
 * @statelyai/inspect's own bridge page does. The token comes in the URL's fragment, which the
 * browser never sends to a server, and goes to the websocket as its first message.
 */

/** The Stately inspector, as @statelyai/inspect's bridge embeds it. */
export const STATELY_INSPECTOR_URL = 'https://stately.ai/inspect';

/** The bridge's first message: the token, before which a client is sent nothing. */
export const TOKEN_MESSAGE = 'statewright.token';

export const BRIDGE_HTML = `<!doctype html>
<html>
<head>
  <meta charset="utf-8">
  <title>statewright: Stately inspector bridge</title>
  <style>
    * { margin: 0; padding: 0; }
    html, body { height: 100%; display: flex; flex-direction: column; font: 13px system-ui, sans-serif; }
    body > div { padding: 4px 8px; background: #f4f4f4; border-bottom: 1px solid #ddd; }
    iframe { flex: 1; width: 100%; border: none; }
  </style>
</head>
<body>
  <div><span id="status">The Stately inspector below is a page of stately.ai, on the internet: offline it stays blank. The live view of <code>statewright serve</code> works offline.</span> <span id="count"></span></div>
  <iframe id="inspector" src="${STATELY_INSPECTOR_URL}"></iframe>
  <script src="/bridge.js"></script>
</body>
</html>
`;

export const BRIDGE_SCRIPT = `'use strict';
const stately = new URL(${JSON.stringify(STATELY_INSPECTOR_URL)}).origin;
const iframe = document.getElementById('inspector');
const status = document.getElementById('status');
const count = document.getElementById('count');
let received = 0;
const token = new URLSearchParams(location.hash.slice(1)).get('token');
const waiting = [];
let connected = false;
// Only the framed inspector says it is ready; events go to its origin, never to whatever else the frame shows.
window.addEventListener('message', (e) => {
  if (e.source !== iframe.contentWindow || e.origin !== stately) return;
  if (e.data && e.data.type === '@statelyai.connected') {
    connected = true;
    for (const event of waiting.splice(0)) iframe.contentWindow.postMessage(event, stately);
  }
});
const socket = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/');
socket.onopen = () => socket.send(JSON.stringify({ type: ${JSON.stringify(TOKEN_MESSAGE)}, token }));
socket.onmessage = (m) => {
  const event = JSON.parse(m.data);
  count.textContent = '(' + ++received + ' inspection events received)';
  if (connected) iframe.contentWindow.postMessage(event, stately);
  else waiting.push(event);
};
socket.onclose = (e) => {
  status.textContent = e.code === 1008
    ? 'The bridge refused this page: open the inspector URL that statewright printed (it ends in #token=...).'
    : 'The bridge has stopped (statewright is no longer running): events shown so far stay.';
};
`;

/** What serve and demo print of the bridge: its URL, and that the page it shows is on the internet. */
export const inspectorBanner = (url: string) =>
  `Stately inspector bridge (127.0.0.1 only): ${url}\n` +
  '  its page shows the Stately inspector, a page of stately.ai: it needs the internet (offline it stays blank); the live view above works offline';

/** What the page may load: its script, the Stately inspector in a frame, the bridge's websocket; no one may frame it. */
export function bridgePolicy(host: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'unsafe-inline'",
    `frame-src ${new URL(STATELY_INSPECTOR_URL).origin}`,
    `connect-src ws://${host}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}
