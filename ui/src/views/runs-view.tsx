import { useEffect, useState } from 'preact/hooks';
import type { MachineInfo, RunJson } from '../api.js';
import { ago, outcome, time } from '../format.js';
import { href } from '../route.js';
import { useRunPages } from '../run-pages.js';

const STATUSES = ['active', 'done', 'error', 'stopped'];
/** How long the search waits after the last key before it asks the server. */
const SEARCH_PAUSE_MS = 250;

const ownerText = (run: RunJson) => (run.owner ? `${run.owner.id} (pid ${run.owner.pid} on ${run.owner.host})` : '');

/** Every run of every lifecycle, newest first: filtered, searched by id and paged by the server, a page at a time. */
export function RunsView({ machines, machine: initialMachine }: { machines: MachineInfo[]; machine?: string }) {
  const [machine, setMachine] = useState(initialMachine ?? '');
  const [status, setStatus] = useState('');
  const [state, setState] = useState('');
  const [search, setSearch] = useState('');
  const [waitingOnly, setWaitingOnly] = useState(false);
  const [q, setQ] = useState('');
  useEffect(() => {
    const typed = setTimeout(() => setQ(search.trim()), SEARCH_PAUSE_MS);
    return () => clearTimeout(typed);
  }, [search]);
  // "waits for you" is the server's filter (`waitsForPerson`): each page reads at most a scan budget
  // of runs, so it may come back short, or empty, with more to read ("more" goes on).
  const {
    runs: shown,
    more,
    loadingMore,
    scanned,
    error,
    loadMore,
  } = useRunPages(
    { machine, status, state, q, waitsForPerson: waitingOnly },
    (step) => !machine || step.machine === machine,
  );
  const states = [
    ...new Set((machine ? machines.filter((m) => m.name === machine) : machines).flatMap((m) => m.states)),
  ].sort();
  return (
    <section>
      <h1>Runs</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          lifecycle
          <select name="machine" value={machine} onChange={(e) => (setMachine(e.currentTarget.value), setState(''))}>
            <option value="">all</option>
            {machines.map((m) => (
              <option key={m.name} value={m.name}>
                {m.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          status
          <select name="status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">all</option>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          state
          <select name="state" value={state} onChange={(e) => setState(e.currentTarget.value)}>
            <option value="">all</option>
            {states.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          search
          <input
            name="search"
            type="search"
            placeholder="run id"
            value={search}
            onInput={(e) => setSearch(e.currentTarget.value)}
          />
        </label>
        <label class="check">
          <input
            name="waiting"
            type="checkbox"
            checked={waitingOnly}
            onChange={(e) => setWaitingOnly(e.currentTarget.checked)}
          />
          waits for you
        </label>
      </form>
      {error && <p class="error">{error.message}</p>}
      {!shown ? (
        <p class="muted">loading…</p>
      ) : shown.length === 0 && waitingOnly && more ? (
        <p class="muted">Waits for you: none in the {scanned} runs read so far.</p>
      ) : shown.length === 0 && waitingOnly ? (
        <p class="muted">No run waits for a person.</p>
      ) : shown.length === 0 ? (
        <p class="muted">
          No runs match. Start one with <code>npx statewright start &lt;lifecycle&gt;</code> or through the API (
          <code>POST /api/runs</code>).
        </p>
      ) : (
        <table class="runs">
          <thead>
            <tr>
              <th>run</th>
              <th>lifecycle</th>
              <th>state</th>
              <th>status</th>
              <th>owner</th>
              <th>last step</th>
              <th>verdict</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((run) => {
              const reads = outcome(run.status, run.state);
              return (
                <tr key={run.runId} data-run={run.runId} class={run.waitsForPerson ? 'waits' : undefined}>
                  <td data-label="run" class="id">
                    <a href={href.run(run.runId)}>{run.runId}</a>
                  </td>
                  <td data-label="lifecycle">
                    <a href={href.lifecycle(run.machine)}>{run.machine}</a>
                  </td>
                  <td data-label="state" class="state">
                    {run.state}
                    {run.waitsForPerson && (
                      <span class="badge you" title="a person's decision moves it next">
                        waits for you
                      </span>
                    )}
                    {run.setAside && (
                      <span class="badge warn" title={run.setAside.reason}>
                        set aside
                      </span>
                    )}
                  </td>
                  <td
                    data-label="status"
                    class={`status ${reads.label} ${reads.tone}`}
                    title={`status ${run.status}, state ${run.state}`}
                  >
                    {reads.label}
                  </td>
                  <td data-label="owner" class="owner">
                    {ownerText(run) || <span class="muted">none</span>}
                  </td>
                  <td
                    data-label="last step"
                    class="age"
                    title={`last step ${time(run.updatedAt)}, started ${time(run.createdAt)}`}
                  >
                    {ago(run.updatedAt)}
                  </td>
                  <td data-label="verdict" class="verdict">
                    {run.verdict}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {shown && more && (
        <p class="muted">
          {waitingOnly
            ? `${shown.length} waiting in the newest ${scanned} runs read.`
            : `The newest ${shown.length} runs shown.`}{' '}
          <button type="button" name="more" class="secondary" disabled={loadingMore} onClick={loadMore}>
            {loadingMore ? 'loading…' : 'more'}
          </button>
        </p>
      )}
    </section>
  );
}
