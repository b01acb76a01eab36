import { useState } from 'preact/hooks';
import { ANONYMOUS, type Sender } from '../person.js';

/**
 * A run the server cannot restore under its lifecycles (set aside): why, and the one thing a person
 * can do about it here, end it, recording their reason in its audit trail. Ending cannot be undone,
 * so the button asks first (**end the run** or **don't end**).
 */
export function SetAsidePanel({
  runId,
  reason,
  sender,
  onEnd,
}: {
  runId: string;
  reason: string;
  /** Who ends it: the view's name, kept in the browser as for every event it sends. */
  sender: Sender;
  onEnd: (by: { actor: string; reason: string }) => Promise<unknown>;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [why, setWhy] = useState('');
  const [problem, setProblem] = useState<string>();
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!asking) return setAsking(true);
    setBusy(true);
    setProblem(undefined);
    try {
      await onEnd({ actor: sender.name.trim() || ANONYMOUS, reason: why.trim() });
      setAsking(false);
    } catch (error) {
      setProblem(`${(error as Error).name}: ${(error as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="set-aside-panel" aria-label="Set aside">
      <h2>Set aside</h2>
      <p class="reason">{reason}</p>
      <p class="muted">
        It takes no events until a registered migration or a fixed definition moves it on; or end it here, keeping its
        snapshot and history.
      </p>
      <form
        class={`end-run ${asking ? 'open' : ''}`}
        onSubmit={submit}
        onKeyDown={(e) => e.key === 'Escape' && asking && !busy && setAsking(false)}
      >
        <label>
          <span>your name</span>
          <input
            name="actor"
            autocomplete="name"
            placeholder={`ended as "${ANONYMOUS}" without one`}
            value={sender.name}
            onInput={(e) => sender.setName((e.currentTarget as HTMLInputElement).value)}
          />
        </label>
        <label>
          <span>
            why end it<abbr title="required">*</abbr>
          </span>
          <input
            name="end-reason"
            required
            value={why}
            onInput={(e) => setWhy((e.currentTarget as HTMLInputElement).value)}
          />
        </label>
        {asking && (
          <p class="confirm" role="alert">
            End <strong>{runId}</strong>? Its status becomes stopped, which cannot be undone.
          </p>
        )}
        <button type="submit" name="end" class="danger" disabled={busy || why.trim() === ''}>
          {asking ? 'end the run' : 'end…'}
        </button>
        {asking && (
          <button type="button" name="keep" disabled={busy} onClick={() => setAsking(false)}>
            don't end
          </button>
        )}
        {problem && <p class="error">{problem}</p>}
      </form>
    </section>
  );
}
