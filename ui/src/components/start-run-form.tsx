import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type JsonSchema, type MachineInfo } from '../api.js';
import { href } from '../route.js';
import { FieldInput, fieldsOf, parseJson, readFields } from './schema-fields.js';

/** An input schema the form can lay out as fields: an object with properties. */
const asObject = (schema?: JsonSchema) =>
  schema?.properties && (schema.type === 'object' || schema.type === undefined) ? schema : undefined;

/**
 * Starts a run from the view, as Temporal's "Start Workflow" does: a lifecycle, an id (optional:
 * the server makes one), and its input as fields made from the lifecycle's input schema (JSON for
 * what a field cannot say, or for all of it when the lifecycle gives no schema). It posts to the
 * API's start (`POST /api/runs`) with the view's credential, behind the same checks as any client;
 * a refusal shows the server's typed error. Started, the view opens the run.
 */
export function StartRunForm({
  machines,
  machine,
  onClose,
}: {
  machines: MachineInfo[];
  machine?: string;
  onClose: () => void;
}) {
  const [name, setName] = useState(machine || machines[0]?.name || '');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string>();
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => form.current?.querySelector<HTMLElement>('select, input')?.focus(), []);
  const lifecycle = machines.find((m) => m.name === name);
  const schema = asObject(lifecycle?.input);
  const fields = fieldsOf(schema);
  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem(undefined);
    const element = e.currentTarget as HTMLFormElement;
    let input: unknown;
    try {
      if (schema) input = readFields(fields, element, {});
      else {
        const raw = String(new FormData(element).get('input') ?? '').trim();
        if (raw !== '') input = parseJson('input', raw);
      }
    } catch (error) {
      return setProblem((error as Error).message);
    }
    const id = String(new FormData(element).get('id') ?? '').trim();
    setBusy(true);
    try {
      const run = await api.start(name, { ...(id && { id }), ...(input !== undefined && { input }) });
      onClose();
      location.hash = href.run(run.runId);
    } catch (error) {
      setProblem(`${(error as Error).name}: ${(error as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      ref={form}
      class="start-run"
      aria-label="Start a run"
      onSubmit={submit}
      onKeyDown={(e) => e.key === 'Escape' && !busy && onClose()}
    >
      <fieldset>
        <legend>Start a run</legend>
        <label>
          <span>lifecycle</span>
          <select name="machine" value={name} onChange={(e) => setName(e.currentTarget.value)}>
            {machines.map((m) => (
              <option key={m.name} value={m.name}>
                {m.name}
              </option>
            ))}
          </select>
          {lifecycle && <small>{lifecycle.summary}</small>}
        </label>
        <label>
          <span>id</span>
          <input name="id" placeholder="left empty: the server makes one" autoComplete="off" />
        </label>
        {fields.map((field) => (
          <label key={`${name}.${field.name}`}>
            <span>
              {field.name}
              {field.required && <abbr title="required">*</abbr>}
            </span>
            <FieldInput field={field} />
            {field.schema.description && <small>{field.schema.description}</small>}
          </label>
        ))}
        {!schema && (
          <label key={`${name}.input`}>
            <span>input</span>
            <textarea name="input" rows={3} placeholder="JSON, or empty for none" />
            <small>
              {lifecycle?.input
                ? 'What the run is started with, as JSON.'
                : 'What the run is started with, as JSON: its lifecycle does not describe it (defineLifecycle({ input })).'}
            </small>
          </label>
        )}
      </fieldset>
      <button type="submit" name="start" disabled={busy || !lifecycle}>
        {busy ? 'starting…' : 'start'}
      </button>
      <button type="button" name="dismiss" class="secondary" onClick={onClose}>
        cancel
      </button>
      {problem && (
        <p class="error refusal" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}
