import { useState } from 'preact/hooks';
import type { EventTemplate, WaitingFor } from '../api.js';

/** A person's part: a pending tool call to approve or deny, or a question, with the buttons that answer. */
export function WaitingForPanel({
  items,
  onSend,
}: {
  items: WaitingFor[];
  onSend: (event: EventTemplate, options: { actor?: string; reason?: string }) => Promise<unknown>;
}) {
  return (
    <section class="waiting">
      <h2>Waiting for you</h2>
      {items.map((item) => (
        <Pending key={item.id} item={item} onSend={onSend} />
      ))}
    </section>
  );
}

function Pending({
  item,
  onSend,
}: {
  item: WaitingFor;
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
      <p>
        <strong>{item.kind === 'approval' ? 'Approve this tool call?' : 'Question'}</strong> {item.summary}
      </p>
      {item.detail !== undefined && (
        <pre>{typeof item.detail === 'string' ? item.detail : JSON.stringify(item.detail, null, 2)}</pre>
      )}
      {item.approve && (
        <button type="button" name="approve" disabled={busy} onClick={() => answer(item.approve!, 'approved')}>
          approve
        </button>
      )}
      {item.deny && (
        <button type="button" name="deny" class="danger" disabled={busy} onClick={() => answer(item.deny!, 'denied')}>
          deny
        </button>
      )}
      {problem && <p class="error refusal">{problem}</p>}
    </div>
  );
}
