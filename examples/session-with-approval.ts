// A Claude Code session with an approval, from a Node app (the example of docs/lifecycles/session.md; run by
// test/session/example.test.ts). The agent is a stand-in that speaks Claude's stream-json; put
// ['claude'] (the default) in `command` to run the real one.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lifecycles } from '../machines/index.js';
import { createRuntime, sqliteStore } from '../src/index.js';
import { sessionLifecycle, type SessionRecord } from '../src/session/index.js';

const dir = mkdtempSync(join(tmpdir(), 'statewright-session-'));
const store = sqliteStore(join(dir, 'state.db'));
const sessions = sessionLifecycle({ logDir: join(dir, 'sessions') });
// Sessions a previous daemon left active on this store are failed now ("Session orphaned due to daemon restart").
const runtime = await createRuntime({ store, machines: lifecycles, actors: { ...sessions.actors } });
const daemon = await sessions.attach(runtime); // and the agents those sessions left running are stopped

let ended: (session: SessionRecord) => void;
const finished = new Promise<SessionRecord>((resolve) => (ended = resolve));
let started: () => void;
const running = new Promise<void>((resolve) => (started = resolve));
daemon.onStatusChanged(async ({ session_id, old_status, new_status }) => {
  console.log(`${session_id}: ${old_status} -> ${new_status}`); // told only after the change is committed
  if (old_status === 'starting' && new_status === 'running') started();
  if (new_status === 'completed' || new_status === 'failed') ended(await daemon.get(session_id));
});

const agent = fileURLToPath(new URL('./agents/session-approval.sh', import.meta.url));
const session = await daemon.launch({
  id: 'session-1',
  query: 'Make the test suite pass',
  config: { command: [agent] },
});
await running; // Claude reported its session id

// Claude wants to run a tool: its permission prompt tool asks the daemon (running -> waiting_input).
const { approval } = await daemon.requestApproval(session.session_id, {
  tool_name: 'Bash',
  tool_input: { command: 'npm test' },
  tool_use_id: 'toolu_01',
});
for (const { session: waiting, approvals } of await daemon.sessionsAwaitingInput()) {
  console.log(
    `${waiting.session_id} awaits ${approvals.map((a) => `${a.tool_name} ${JSON.stringify(a.tool_input)}`).join(', ')}`,
  );
}
// A person approves it (waiting_input -> running); the agent reads the decision and finishes.
await daemon.approve(session.session_id, approval.approval_id, { actor: 'alice', comment: 'go ahead' });

const done = await finished;
console.log(`${done.status}: $${done.cost_usd}, ${done.total_tokens} tokens, "${done.summary}"`);
for (const step of await daemon.history(done.session_id)) {
  if (step.before !== step.after)
    console.log(
      `  ${step.before} -> ${step.after} on ${step.event.type} by ${step.actor ?? '?'}: ${step.reason ?? ''}`,
    );
}

await daemon.close(); // interrupts what is still active, waits for the agents
await runtime.close();
await store.close();
