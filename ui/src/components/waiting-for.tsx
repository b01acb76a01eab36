import { useState } from 'preact/hooks';
import type { EventTemplate, WaitingFor } from '../api.js';

/**
 * A person's part: what the run waits for (a lifecycle's `waitsFor`, a pending tool call, a
 * question), with the buttons that answer when the lifecycle names the events that do.
 */
export function WaitingForPanel({
  items,
  state,
  onSend,
}: {
  items: WaitingFor[];
  /** The state the run rests in: a lifecycle's `waitsFor` names its decision after it. */
  state: string;
  onSend: (event: EventTemplate, options: { actor?: string; reason?: string }) => Promise<unknown>;
}) {
  return (
    <section class="waiting">
      <h2>Waiting for a person</h2>
      {items.map((item) => (
        <Pending key={item.id} item={item} state={state} onSend={onSend} />
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
  onSend,
}: {
  item: WaitingFor;
  state: string;
  onSend: (event: EventTemplate, options: { actor?: string; reason?: string }) => Promise<unknown>;
}) {
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const answer = async (event: EventTemplate, verb: string) => {
    setBusy(true);
    setProblem(undefined);
    try {
      await onSend(event, { actor: 'ui', reason: `${verb} in the live view` });
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
          onClick={() => answer(item.approve!, 'approved')}
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
          onClick={() => answer(item.deny!, 'denied')}
        >
          deny <small>{item.deny.type}</small>
        </button>
      )}
      {problem && <p class="error refusal">{problem}</p>}
    </div>
  );
}
