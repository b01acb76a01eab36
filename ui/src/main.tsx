import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, type MachineInfo } from './api.js';
import { retryDelayMs, worthRetrying } from './retry.js';
import { href, useRoute } from './route.js';
import { useLive } from './steps.js';
import { LifecycleView } from './views/lifecycle-view.js';
import { RunView } from './views/run-view.js';
import { RunsView } from './views/runs-view.js';
import { OpenTheView } from './views/open-the-view.js';
import { openSession, useClosed } from './view-session.js';

function App() {
  const closed = useClosed();
  return closed === undefined ? <LiveView /> : <OpenTheView why={closed} />;
}

function LiveView() {
  const route = useRoute();
  const live = useLive();
  const [machines, setMachines] = useState<MachineInfo[]>([]);
  const [error, setError] = useState<string>();
  useEffect(() => {
    let retry: ReturnType<typeof setTimeout> | undefined;
    // The lifecycles name the header's links: a failed read is shown and tried again (retry.ts).
    const load = (failures: number) =>
      api.machines().then(
        (machines) => {
          setError(undefined);
          setMachines(machines);
        },
        (e: Error) => {
          setError(e.message);
          if (worthRetrying(e)) retry = setTimeout(() => load(failures + 1), retryDelayMs(failures));
        },
      );
    void load(0);
    return () => clearTimeout(retry);
  }, []);
  return (
    <>
      <header>
        <a class="brand" href={href.runs()}>
          statewright
        </a>
        <nav>
          <a href={href.runs()} class={route.view === 'runs' ? 'active' : ''}>
            Runs
          </a>
          {machines.map((m) => (
            <a
              key={m.name}
              href={href.lifecycle(m.name)}
              class={route.view === 'lifecycle' && route.name === m.name ? 'active' : ''}
            >
              {m.name}
            </a>
          ))}
        </nav>
        <span
          class={`live ${live ? 'on' : 'off'}`}
          title={live ? 'receiving committed steps' : 'not connected to /api/steps'}
        >
          {live ? 'live' : 'offline'}
        </span>
      </header>
      <main>
        {error && <p class="error">Could not reach the server: {error}</p>}
        {route.view === 'runs' && <RunsView machines={machines} machine={route.machine} />}
        {route.view === 'run' && <RunView id={route.id} />}
        {route.view === 'lifecycle' && (
          <LifecycleView name={route.name} machine={machines.find((m) => m.name === route.name)} />
        )}
      </main>
    </>
  );
}

// The session first: the fragment's token leaves the address bar before the views read their route from it.
const shown = () => render(<App />, document.getElementById('app')!);
openSession().then(shown, (error: Error) => {
  shown();
  console.error(error);
});
