import { api, type EventTemplate } from '../api.js';
import { AuditTrail } from '../components/audit-trail.js';
import { Diagram } from '../components/diagram.js';
import { EventForm } from '../components/event-form.js';
import { ExplainPanel } from '../components/explain-panel.js';
import { WaitingForPanel } from '../components/waiting-for.js';
import { age } from '../format.js';
import { href } from '../route.js';
import { runStep } from '../run-steps.js';
import { useLiveData } from '../steps.js';

/**
 * The run, its audit trail and its explanation, loaded together so they always agree. A run that
 * cannot be explained is still shown, with why not in place of the explain panel.
 */
async function loadRun(id: string) {
  const [run, events, explanation] = await Promise.all([
    api.run(id),
    api.history(id),
    api.explain(id).catch((error: Error) => error),
  ]);
  return { run, events, explanation };
}

/** One run on its statechart: where it is, how it got there, why it waits, and what can move it. */
export function RunView({ id }: { id: string }) {
  // A step of the run updates the page from its payload (see run-steps.ts); a reconnect reloads it.
  const { data, error, reload } = useLiveData(
    () => loadRun(id),
    (step) => step.runId === id,
    id,
    runStep(id),
  );
  if (!data)
    return error ? (
      <p class="error">
        {error.name}: {error.message}
      </p>
    ) : (
      <p class="muted">loading…</p>
    );
  const { run, events, explanation } = data;
  const explained = explanation instanceof Error ? undefined : explanation;
  const send = async (event: EventTemplate, options: { actor?: string; reason?: string }) => {
    try {
      return await api.send(id, event, { actor: 'ui', ...options });
    } finally {
      reload();
    }
  };
  return (
    <section class="run">
      <h1>
        {run.runId}{' '}
        <small>
          <a href={href.lifecycle(run.machine)}>{run.machine}</a> v{run.version}
        </small>
      </h1>
      <p class="summary">
        <span class="state-now" data-state={run.state}>
          {run.state}
        </span>
        <span class={`status ${run.status}`}>{run.status}</span>
        <span class="muted">
          step {run.seq}, started {age(run.createdAt)} ago
        </span>
        {run.setAside && <span class="badge warn">set aside: {run.setAside.reason}</span>}
      </p>
      {error && <p class="error">Could not refresh: {error.message}</p>}
      <div class="columns">
        <div class="left">
          <Diagram machine={run.machine} marks={{ current: run.state, path: events }} />
          {explained?.waitingFor && explained.waitingFor.length > 0 && (
            <WaitingForPanel items={explained.waitingFor} state={run.state} onSend={send} />
          )}
          <section class="actions">
            <h2>Send an event</h2>
            {!explained ? (
              <p class="muted">The events it accepts are not known: the run could not be explained.</p>
            ) : explained.accepts.length === 0 ? (
              <p class="muted">
                {run.status === 'active'
                  ? 'This state accepts no event from outside now.'
                  : `The run is ${run.status}: it accepts no more events.`}
              </p>
            ) : (
              explained.accepts.map((accepted) => (
                <EventForm key={`${run.seq}:${accepted.type}`} accepted={accepted} onSend={send} />
              ))
            )}
          </section>
        </div>
        <div class="right">
          {explained ? (
            <ExplainPanel explanation={explained} />
          ) : (
            <p class="error">
              Cannot explain this run: {explanation instanceof Error && `${explanation.name}: ${explanation.message}`}
            </p>
          )}
          <details>
            <summary>context and input</summary>
            <pre>{JSON.stringify({ context: run.context, input: run.input }, null, 2)}</pre>
          </details>
        </div>
      </div>
      <h2>Audit trail</h2>
      <AuditTrail events={events} />
    </section>
  );
}
