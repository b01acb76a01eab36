import { useEffect, useRef, useState } from 'preact/hooks';
import type { Accepted, EventTemplate, JsonSchema } from '../api.js';
import { constantsOf, type Field, FieldInput, fieldsOf, readFields } from './schema-fields.js';

/** The properties the form asks for: every property but `type`, which the button already names. */
function eventFields(accepted: Accepted): Field[] {
  const schema = accepted.needs.schema;
  // A field the schema does not describe (the sender a role guard reads, say) is asked for as text.
  const properties: Record<string, JsonSchema> = { ...schema?.properties };
  for (const field of accepted.needs.fields) properties[field] ??= { type: 'string' };
  delete properties.type;
  return fieldsOf({ ...schema, properties }, accepted.needs.fields);
}

/** Reads the form back into the event to send; a field left empty is left out, so the server names it if it is required. */
function readEvent(accepted: Accepted, form: HTMLFormElement): EventTemplate {
  const event: EventTemplate = { type: accepted.type, ...constantsOf(accepted.needs.schema, ['type']) };
  return readFields(eventFields(accepted), form, event) as EventTemplate;
}

/**
 * A button for one event the run accepts now. With fields to fill in, it opens a form generated from
 * the event's JSON Schema; an event that ends or cancels the run (`ending`) opens a confirmation
 * naming it first; any other is sent on the click. The send goes to the server, which refuses with a
 * typed error if need be. Who sends it and why come from the view's name and reason (`onSend`).
 */
export function EventForm({
  accepted,
  ending = false,
  onSend,
}: {
  accepted: Accepted;
  /** The event ends or cancels the run from its state: the view asks before sending it. */
  ending?: boolean;
  onSend: (event: EventTemplate) => Promise<unknown>;
}) {
  const fields = eventFields(accepted);
  const asks = fields.length > 0 || ending;
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string>();
  const form = useRef<HTMLFormElement>(null);
  // Opened by keyboard or mouse, the form takes the focus: its first field, or the send button.
  useEffect(() => {
    if (open)
      form.current
        ?.querySelector<HTMLElement>('fieldset input, fieldset select, fieldset textarea, button[name="send"]')
        ?.focus();
  }, [open]);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    setProblem(undefined);
    let event: EventTemplate;
    try {
      event = readEvent(accepted, form);
    } catch (error) {
      return setProblem((error as Error).message);
    }
    setBusy(true);
    try {
      await onSend(event);
      setOpen(false);
    } catch (error) {
      setProblem(`${(error as Error).name}: ${(error as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      ref={form}
      class={`event-form ${open ? 'open' : ''} ${ending ? 'ending' : ''}`}
      data-event={accepted.type}
      onSubmit={submit}
      onKeyDown={(e) => e.key === 'Escape' && open && !busy && setOpen(false)}
      aria-label={open ? `${ending ? 'Confirm ' : ''}${accepted.type}` : undefined}
    >
      {open && (
        <fieldset>
          <legend>
            {accepted.type}
            {accepted.needs.roles?.length ? <small> sent by {accepted.needs.roles.join(' or ')}</small> : null}
          </legend>
          {ending && (
            <p class="confirm" role="alert">
              Send <strong>{accepted.type}</strong>? It ends or cancels the run, which cannot be undone.
            </p>
          )}
          {fields.map((field) => (
            <label key={field.name}>
              <span>
                {field.name}
                {field.required && <abbr title="required">*</abbr>}
              </span>
              <FieldInput field={field} />
              {field.schema.description && <small>{field.schema.description}</small>}
            </label>
          ))}
        </fieldset>
      )}
      <button
        type={open || !asks ? 'submit' : 'button'}
        name="send"
        disabled={busy}
        class={ending ? 'danger' : undefined}
        onClick={open || !asks ? undefined : (e) => (e.preventDefault(), setOpen(true))}
        title={
          fields.length
            ? `needs ${fields.map((f) => f.name).join(', ')}`
            : ending
              ? 'ends the run: asks first'
              : 'send it now'
        }
      >
        {open && ending ? `send ${accepted.type}` : accepted.type}
        {!open && asks && '…'}
      </button>
      {open && (
        <button type="button" name="dismiss" class="secondary" onClick={() => setOpen(false)}>
          {ending ? "don't send" : 'cancel'}
        </button>
      )}
      {problem && <p class="error refusal">{problem}</p>}
    </form>
  );
}
