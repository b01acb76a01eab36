import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, type HostInfo, type MachineInfo, type RunCounts, type RunJson, type Step } from '../api.js';
import { StartRunForm } from '../components/start-run-form.js';
import { ago, clock, duration, time, toDate } from '../format.js';
import { href } from '../route.js';
import { useRunPages } from '../run-pages.js';
import { countsByWord, STATUS_WORDS, statusQuery, statusWord } from '../run-status.js';
import { useResync, useSteps } from '../steps.js';

/** How long the search waits after the last key before it asks the server. */
const SEARCH_PAUSE_MS = 250;
/** The counts are read again at most this often while steps arrive. */
const COUNTS_PAUSE_MS = 500;

/** Who holds the run (its lease's holder, else the host that last committed it). */
const ownerOf = (run: RunJson) => run.lease?.holder ?? run.owner?.id;
const ownerTitle = (run: RunJson) => (run.owner ? `${run.owner.id}: pid ${run.owner.pid} on ${run.owner.host}` : '');

/** The store's counts for the list's lifecycle, read again (at most every `COUNTS_PAUSE_MS`) after each step that matters. */
function useCounts(machine: string, matters: (step: Step) => boolean): RunCounts | undefined {
  const [counts, setCounts] = useState<RunCounts>();
  const pending = useRef<ReturnType<typeof setTimeout>>(undefined);
  const read = useCallback(() => {
    api.counts(machine ? { machine } : {}).then(setCounts, () => {});
  }, [machine]);
  useEffect(() => {
    setCounts(undefined);
    read();
    return () => clearTimeout(pending.current);
  }, [read]);
  const later = useCallback(() => {
    if (pending.current !== undefined) return;
    pending.current = setTimeout(() => {
      pending.current = undefined;
      read();
    }, COUNTS_PAUSE_MS);
  }, [read]);
  useSteps(useCallback((step: Step) => matters(step) && later(), [matters, later]));
  useResync(later);
  return counts;
}

/**
 * Every run of every lifecycle, newest first: filtered, searched by id and paged by the server, a
 * page at a time, with the store's counts by status word at the top and a form to start a run.
 */
export function RunsView({ machines, machine: initialMachine }: { machines: MachineInfo[]; machine?: string }) {
  const [machine, setMachine] = useState(initialMachine ?? '');
  const [word, setWord] = useState('');
  const [state, setState] = useState('');
  const [search, setSearch] = useState('');
  const [waitingOnly, setWaitingOnly] = useState(false);
  const [starting, setStarting] = useState(false);
  const [host, setHost] = useState<HostInfo>();
  const [q, setQ] = useState('');
  useEffect(() => {
    const typed = setTimeout(() => setQ(search.trim()), SEARCH_PAUSE_MS);
    return () => clearTimeout(typed);
  }, [search]);
  useEffect(() => {
    api.host().then(setHost, () => {});
  }, []);
  const matters = useCallback((step: Step) => !machine || step.machine === machine, [machine]);
  const { status, keep } = useMemo(() => statusQuery(word, machines), [word, machines]);
  // "waits for you" is the server's filter (`waitsForPerson`): each page reads at most a scan budget
  // of runs, so it may come back short, or empty, with more to read ("more" goes on).
  const {
    runs: shown,
    more,
    loadingMore,
    scanned,
    error,
    loadMore,
  } = useRunPages({ machine, status: status ?? '', word, state, q, waitsForPerson: waitingOnly }, matters, keep);
  const counts = useCounts(machine, matters);
  const byWord = counts ? countsByWord(counts, machines) : [];
  // The filter offers the words the column shows for the runs counted, and the one chosen.
  const words = STATUS_WORDS.filter((w) => w === word || byWord.some((counted) => counted.word === w));
  const severalHosts = (host?.hosts ?? 1) > 1;
  const grouped = machine ? machines.filter((m) => m.name === machine) : machines;
  return (
    <section class="runs-view">
      <div class="runs-head">
        <h1>Runs</h1>
        {counts && (
          <nav class="run-counts" aria-label="runs by status">
            <button
              type="button"
              class={`count total ${word === '' ? 'chosen' : ''}`}
              data-status=""
              onClick={() => setWord('')}
            >
              <strong>{counts.total}</strong> {counts.total === 1 ? 'run' : 'runs'}
            </button>
            {byWord.map(({ word: w, runs: n, tone }) => (
              <button
                type="button"
                key={w}
                class={`count status ${w} ${tone} ${word === w ? 'chosen' : ''}`}
                data-status={w}
                aria-pressed={word === w}
                title={`show the ${w} runs only`}
                onClick={() => setWord(word === w ? '' : w)}
              >
                <strong>{n}</strong> {w}
              </button>
            ))}
          </nav>
        )}
        <button type="button" name="start-run" class="start" onClick={() => setStarting(!starting)}>
          Start a run
        </button>
      </div>
      {starting && <StartRunForm machines={machines} machine={machine} onClose={() => setStarting(false)} />}
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
          <select name="status" value={word} onChange={(e) => setWord(e.currentTarget.value)}>
            <option value="">all</option>
            {words.map((w) => (
              <option key={w}>{w}</option>
            ))}
          </select>
        </label>
        <label>
          state
          <select
            name="state"
            value={state && `${machine}\n${state}`}
            onChange={(e) => {
              const [m = '', s = ''] = e.currentTarget.value.split('\n');
              setState(s);
              if (m) setMachine(m);
            }}
          >
            <option value="">all</option>
            {grouped.map((m) => (
              <optgroup key={m.name} label={m.name}>
                {m.states.map((s) => (
                  <option key={s} value={`${m.name}\n${s}`}>
                    {s}
                  </option>
                ))}
              </optgroup>
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
      ) : shown.length === 0 && (waitingOnly || keep) && more ? (
        <p class="muted">
          {waitingOnly ? 'Waits for you' : word}: none in the {scanned} runs read so far.
        </p>
      ) : shown.length === 0 && waitingOnly ? (
        <p class="muted">No run waits for a person.</p>
      ) : shown.length === 0 ? (
        <p class="muted">
          No runs match. Start one with <strong>Start a run</strong> above
          {host?.store === 'memory' ? (
            <>
              {' '}
              (this serve keeps its runs in memory: a run started by another process, such as{' '}
              <code>npx statewright start</code>, would not be here)
            </>
          ) : (
            <>
              , <code>npx statewright start &lt;lifecycle&gt;</code> beside this serve's store
            </>
          )}
          , or through this server's API (<code>POST /api/runs</code>).
        </p>
      ) : (
        <table class="runs">
          <thead>
            <tr>
              <th>run</th>
              <th>lifecycle</th>
              <th>state</th>
              <th>status</th>
              <th>started</th>
              <th>last step</th>
              <th title="from its start to its last step, or to now while it is active">duration</th>
              {severalHosts && <th>owner</th>}
              <th>note</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((run) => {
              const reads = statusWord(run, machines);
              // A finished run's status says it all; an active one's verdict says what moves it next.
              const note = run.setAside
                ? `set aside: ${run.setAside.reason}`
                : run.status === 'active'
                  ? run.verdict
                  : '';
              return (
                <tr key={run.runId} data-run={run.runId} class={run.waitsForPerson ? 'waits' : undefined}>
                  <td data-label="run" class="id">
                    <a href={href.run(run.runId)} title={run.runId}>
                      {run.runId}
                    </a>
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
                  <td data-label="started" class="time" title={`started ${time(run.createdAt)}`}>
                    {clock(run.createdAt)}
                  </td>
                  <td data-label="last step" class="time age" title={`last step ${time(run.updatedAt)}`}>
                    {ago(run.updatedAt)}
                  </td>
                  <td
                    data-label="duration"
                    class={`time ${run.status === 'active' ? 'running' : ''}`}
                    title={run.status === 'active' ? 'active for' : 'from its start to its last step'}
                  >
                    {duration(
                      (run.status === 'active' ? Date.now() : toDate(run.updatedAt).getTime()) -
                        toDate(run.createdAt).getTime(),
                    )}
                  </td>
                  {severalHosts && (
                    <td data-label="owner" class="owner" title={ownerTitle(run)}>
                      {ownerOf(run) ?? <span class="muted">none</span>}
                    </td>
                  )}
                  <td data-label="note" class="verdict" title={note || undefined}>
                    {note}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {shown && more && (
        <p class="muted">
          {waitingOnly || keep
            ? `${shown.length} ${waitingOnly ? 'waiting' : word} in the newest ${scanned} runs read.`
            : `The newest ${shown.length} runs shown.`}{' '}
          <button type="button" name="more" class="secondary" disabled={loadingMore} onClick={loadMore}>
            {loadingMore ? 'loading…' : 'more'}
          </button>
        </p>
      )}
    </section>
  );
}
