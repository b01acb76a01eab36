import { api, type MachineInfo } from '../api.js';
import { Diagram } from '../components/diagram.js';
import { age } from '../format.js';
import { href } from '../route.js';
import { useLiveData } from '../steps.js';

/** The runs set aside are few (the ones this host cannot restore): one page of the most the server gives holds them. */
const SET_ASIDE_LIMIT = 1000;

async function loadLifecycle(name: string) {
  const [{ counts, total }, setAside] = await Promise.all([
    api.counts({ machine: name }),
    api.runs({ machine: name, setAside: true, limit: SET_ASIDE_LIMIT }),
  ]);
  return { counts, total, setAside: setAside.runs.filter((run) => run.setAside) };
}

/**
 * One lifecycle: its statechart with how many runs rest in each state (a run in a parallel state counted
 * on the leaf of each region it is in), a chip per state or configuration, and the runs set aside.
 */
export function LifecycleView({ name, machine }: { name: string; machine?: MachineInfo }) {
  const { data, error } = useLiveData(
    () => loadLifecycle(name),
    (step) => step.machine === name,
    name,
  );
  return (
    <section class="lifecycle">
      <h1>
        {name} {machine && <small>v{machine.version}</small>}
      </h1>
      {machine && <p class="muted">{machine.summary}</p>}
      {error && (
        <p class="error">
          {error.name}: {error.message}
        </p>
      )}
      <Diagram machine={name} marks={{ counts: data?.counts ?? {} }} />
      {data && (
        <>
          <p>
            {data.total} run{data.total === 1 ? '' : 's'}:{' '}
            {Object.entries(data.counts)
              .sort(([, a], [, b]) => b - a)
              .map(([state, count]) => (
                <span key={state} class="count-chip" data-state={state}>
                  {/* A run in a parallel state rests in one leaf of each region. */}
                  {state.split('|').join(' + ')} {count}
                </span>
              ))}{' '}
            <a href={href.runs(name)}>list them</a>
          </p>
          <h2>Set aside</h2>
          {data.setAside.length === 0 ? (
            <p class="muted">No run of {name} is set aside.</p>
          ) : (
            <table class="set-aside">
              <thead>
                <tr>
                  <th>run</th>
                  <th>state</th>
                  <th>since</th>
                  <th>reason</th>
                </tr>
              </thead>
              <tbody>
                {data.setAside.map((run) => (
                  <tr key={run.runId}>
                    <td>
                      <a href={href.run(run.runId)}>{run.runId}</a>
                    </td>
                    <td>{run.state}</td>
                    <td>{age(run.updatedAt)} ago</td>
                    <td>{run.setAside!.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
