import { useEffect, useRef, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import type { EventTemplate, WaitingFor } from '../api.js';

/**
 * A person's part: what the run waits for (a lifecycle's `waitsFor`, a pending tool call, a
 * question), with the buttons that answer when the lifecycle names the events that do.
 */
export function WaitingForPanel({
  items,
  state,
  ending = () => false,
  onSend,
  children,
}: {
  items: WaitingFor[];
  /** Shown under the heading, above the decisions: who decides and why (the sender's fields). */
  children?: ComponentChildren;
  /** The state the run rests in: a lifecycle's `waitsFor` names its decision after it. */
  state: string;
  /** Whether an event ends or cancels the run: the panel asks before sending it. */
  ending?: (type: string) => boolean;
  /** Sends the event; `reason` is the panel's own ("approved in the live view"), for when the person gave none. */
  onSend: (event: EventTemplate, options: { reason?: string }) => Promise<unknown>;
}) {
  return (
    <section class="waiting" aria-label="Waiting for a person">
      <h2>Waiting for a person</h2>
      {children}
      {items.map((item) => (
        <Pending key={item.id} item={item} state={state} ending={ending} onSend={onSend} />
      ))}
    </section>
  );
}

/**
 * The line that says what is pending. A decision named after the run's state is the lifecycle's
 * `waitsFor` of that state, whose summary says who the run waits for ("an editor"); any other
 * decision's summary says what is asked (a tool call wanting approval, a question).
 */
function Asked({ item, state }: { item: WaitingFor; state: string }) {
  if (state === item.id || state.startsWith(`${item.id}.`))
    return (
      <p>
        Waits for <strong>{item.summary}</strong>
      </p>
    );
  return item.kind === 'approval' ? (
    <p>
      <strong>{item.summary}</strong>
    </p>
  ) : (
    <p>
      <strong>Question</strong> {item.summary}
    </p>
  );
}

function Pending({
  item,
  state,
  ending,
  onSend,
}: {
  item: WaitingFor;
  state: string;
  ending: (type: string) => boolean;
  onSend: (event: EventTemplate, options: { reason?: string }) => Promise<unknown>;
}) {
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  /** The answer that ends the run, asked about before it is sent. */
  const [asking, setAsking] = useState<{ event: EventTemplate; verb: string }>();
  const confirmButton = useRef<HTMLButtonElement>(null);
  useEffect(() => confirmButton.current?.focus(), [asking]);
  // An approval is the outcome the run waits for, never asked about as if it destroyed something;
  // a denial that ends the run is.
  const choose = (event: EventTemplate, verb: string) =>
    verb !== 'approved' && ending(event.type) ? setAsking({ event, verb }) : answer(event, verb);
  const answer = async (event: EventTemplate, verb: string) => {
    setAsking(undefined);
    setBusy(true);
    setProblem(undefined);
    try {
      await onSend(event, { reason: `${verb} in the live view` });
    } catch (error) {
      setProblem(`${(error as Error).name}: ${(error as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="pending" data-pending={item.id}>
      <Asked item={item} state={state} />
      {item.detail !== undefined && (
        <pre>{typeof item.detail === 'string' ? item.detail : JSON.stringify(item.detail, null, 2)}</pre>
      )}
      {item.approve && (
        <button
          type="button"
          name="approve"
          disabled={busy}
          title={`sends ${JSON.stringify(item.approve)}`}
          onClick={() => choose(item.approve!, 'approved')}
        >
          approve <small>{item.approve.type}</small>
        </button>
      )}
      {item.deny && (
        <button
          type="button"
          name="deny"
          class="danger"
          disabled={busy}
          title={`sends ${JSON.stringify(item.deny)}`}
          onClick={() => choose(item.deny!, 'denied')}
        >
          deny <small>{item.deny.type}</small>
        </button>
      )}
      {asking && (
        <div
          class="confirm"
          role="alertdialog"
          aria-label={`Confirm ${asking.event.type}`}
          onKeyDown={(e) => e.key === 'Escape' && setAsking(undefined)}
        >
          <p>
            Send <strong>{asking.event.type}</strong>? It ends the run, which cannot be undone.
          </p>
          <button
            ref={confirmButton}
            type="button"
            name="confirm"
            class="danger"
            onClick={() => answer(asking.event, asking.verb)}
          >
            send {asking.event.type}
          </button>
          <button type="button" name="dismiss" class="secondary" onClick={() => setAsking(undefined)}>
            don't send
          </button>
        </div>
      )}
      {problem && <p class="error refusal">{problem}</p>}
    </div>
  );
}
