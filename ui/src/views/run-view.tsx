import { api, type EventTemplate } from '../api.js';
import { AuditTrail } from '../components/audit-trail.js';
import { Diagram } from '../components/diagram.js';
import { EventForm } from '../components/event-form.js';
import { ExplainPanel } from '../components/explain-panel.js';
import { SetAsidePanel } from '../components/set-aside-panel.js';
import { StepTimeline } from '../components/step-timeline.js';
import { WaitingForPanel } from '../components/waiting-for.js';
import { ago, json, outcome, time } from '../format.js';
import { ANONYMOUS, isEnding, isPersonEvent, SenderFields, useMachineInfo, useSender } from '../person.js';
import { href } from '../route.js';
import { runStep } from '../run-steps.js';
import { useLiveData } from '../steps.js';
import './run-view.css';

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
  const sender = useSender();
  const machine = useMachineInfo(data?.run.machine);
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
  // Every event goes out as the person's name (or `ui`) with their reason (or the caller's own).
  const send = async (event: EventTemplate, options: { reason?: string } = {}) => {
    const reason = sender.reason.trim() || options.reason;
    try {
      const sent = await api.send(id, event, {
        actor: sender.name.trim() || ANONYMOUS,
        ...(reason && { reason }),
      });
      sender.setReason('');
      return sent;
    } finally {
      reload();
    }
  };
  const end = async (by: { actor: string; reason: string }) => {
    try {
      return await api.endRun(id, by);
    } finally {
      reload();
    }
  };
  const setAside = run.status === 'active' ? run.setAside : undefined;
  const reads = setAside
    ? ({ label: 'set aside', tone: 'bad' } as const)
    : outcome(run.status, run.state, machine?.outcomes);
  // What the run accepts is the explanation's: until it is read again for the state a step moved
  // the run to, the page offers nothing rather than the buttons of a state the run has left.
  const current = explained?.state === run.state && explained.status === run.status ? explained : undefined;
  const waiting = current?.waitingFor ?? [];
  // Each action once: the events the waiting panel decides with are its buttons, not "Send an event"'s too.
  const decided = new Set(waiting.flatMap((item) => [item.approve?.type, item.deny?.type]));
  const offered =
    current?.accepts.filter((accepted) => isPersonEvent(machine, accepted.type) && !decided.has(accepted.type)) ?? [];
  const internal = current?.accepts.filter((accepted) => !isPersonEvent(machine, accepted.type)) ?? [];
  const ending = (type: string) => isEnding(machine, run.state, type);
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
        <span class={`status ${reads.label} ${reads.tone}`} title={`status ${run.status}, state ${run.state}`}>
          {reads.label}
        </span>
        <span class="muted">
          step {run.seq}, started <span title={time(run.createdAt)}>{ago(run.createdAt)}</span>, last step{' '}
          <span title={time(run.updatedAt)}>{ago(run.updatedAt)}</span>
        </span>
        {run.setAside && <span class="badge warn">set aside: {run.setAside.reason}</span>}
      </p>
      {error && <p class="error">Could not refresh: {error.message}</p>}
      {/* The person first: what the run waits for and what decides it, above the chart. */}
      <div class="decide">
        {setAside && <SetAsidePanel runId={run.runId} reason={setAside.reason} sender={sender} onEnd={end} />}
        {waiting.length > 0 && (
          <WaitingForPanel items={waiting} state={run.state} ending={ending} onSend={send}>
            <SenderFields sender={sender} />
          </WaitingForPanel>
        )}
        {waiting.length === 0 && offered.length > 0 && <SenderFields sender={sender} />}
        <section class="actions" aria-label="Send an event">
          <h2>{waiting.length > 0 ? 'Or send another event' : 'Send an event'}</h2>
          {!explained ? (
            <p class="muted">The events it accepts are not known: the run could not be explained.</p>
          ) : !current ? (
            <p class="muted">Reading what it accepts in {run.state}…</p>
          ) : offered.length === 0 ? (
            <p class="muted">
              {run.status !== 'active'
                ? `The run is ${run.status}: it accepts no more events.`
                : waiting.length > 0
                  ? 'Nothing else: the buttons above decide it.'
                  : 'This state accepts no event from a person now.'}
            </p>
          ) : (
            offered.map((accepted) => (
              <EventForm
                // A new state gives new forms; a step that leaves the state keeps what the person typed and was told.
                key={`${run.state}:${accepted.type}`}
                accepted={accepted}
                ending={ending(accepted.type)}
                onSend={send}
              />
            ))
          )}
          {internal.length > 0 && (
            <p class="muted internal">
              Sent by the run's agents and timers, not from here: {internal.map((a) => a.type).join(', ')}
            </p>
          )}
        </section>
      </div>
      <div class="columns run-columns">
        <div class="left">
          <Diagram machine={run.machine} marks={{ current: run.state, path: events }} />
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
            <pre>{json({ context: run.context, input: run.input }, 2)}</pre>
          </details>
        </div>
      </div>
      <div class="history">
        <section class="timeline-section" aria-label="Timeline">
          <h2>Timeline</h2>
          <StepTimeline run={run} events={events} />
        </section>
        <section class="audit-section" aria-label="Audit trail">
          <h2>Audit trail</h2>
          <AuditTrail events={events} />
        </section>
      </div>
    </section>
  );
}
