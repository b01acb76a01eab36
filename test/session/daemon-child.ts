/**
 * A session daemon in its own process, for the restart test: it launches session `s1` running the
 * given agent, prints its agent's pid and start time as one JSON line once the session is running,
 * and waits to be killed.
 *
 * Usage: node dist-test/test/session/daemon-child.js <sqlite file> <log dir> <agent program>
 */
import { createAgentProcess } from '../../src/actors/agent-process.js';
import { startDaemon } from '../support/session-daemon.js';
import { sqliteStore } from '../../src/stores/index.js';

const [path, logDir, program] = process.argv.slice(2);
if (!path || !logDir || !program) {
  process.stderr.write('usage: daemon-child.ts <sqlite file> <log dir> <agent program>\n');
  process.exit(2);
}
const daemon = await startDaemon({
  store: sqliteStore(path),
  logDir,
  agent: createAgentProcess({ pollMs: 20 }),
  activity: false,
});
daemon.onStatusChanged(async (change) => {
  if (change.session_id !== 's1' || change.new_status !== 'running') return;
  const { agent } = await daemon.get('s1');
  process.stdout.write(`${JSON.stringify(agent)}\n`);
});
await daemon.launch({ id: 's1', query: 'Work until stopped', config: { command: [program] } });
setInterval(() => {}, 60_000);
