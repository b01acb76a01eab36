/**
 * Form fields made from a JSON Schema (what zod 4's `z.toJSONSchema` gives): one field per property,
 * by its type (text, number, whole number, yes/no, a choice), JSON for what a field cannot say (an
 * object, a list, a union), and the values read back. The event forms and the start form use them.
 */
import type { JsonSchema } from '../api.js';

/** The field a person fills in for one property. */
export type FieldKind = 'text' | 'number' | 'integer' | 'boolean' | 'choice' | 'json';

export interface Field {
  readonly name: string;
  readonly schema: JsonSchema;
  readonly kind: FieldKind;
  readonly required: boolean;
}

export function kindOf(schema: JsonSchema): FieldKind {
  if (schema.enum) return 'choice';
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'string') return 'text';
  if (type === 'number') return 'number';
  if (type === 'integer') return 'integer';
  if (type === 'boolean') return 'boolean';
  return 'json';
}

/** The fields of an object schema's properties (constants left out: they are sent as they are). */
export function fieldsOf(schema: JsonSchema | undefined, alsoRequired: readonly string[] = []): Field[] {
  const required = new Set([...(schema?.required ?? []), ...alsoRequired]);
  return Object.entries(schema?.properties ?? {})
    .filter(([, property]) => property.const === undefined)
    .map(([name, property]) => ({ name, schema: property, kind: kindOf(property), required: required.has(name) }));
}

/** The constant properties (a discriminator, say), sent as they are without asking. */
export function constantsOf(schema?: JsonSchema, except: readonly string[] = []): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(schema?.properties ?? {})
      .filter(([name, p]) => !except.includes(name) && p.const !== undefined)
      .map(([name, p]) => [name, p.const]),
  );
}

/** Text as JSON, or an error saying what JSON looks like. */
export function parseJson(name: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new Error(`${name} must be JSON (for example "text", 3, [1, 2] or {"key": "value"}); it reads: ${raw}`);
  }
}

/**
 * The fields' values from the form, into `into`: a field left empty is left out, so the server
 * names it if it is required; a yes/no field is sent as it is ticked.
 */
export function readFields(fields: readonly Field[], form: HTMLFormElement, into: Record<string, unknown>) {
  const data = new FormData(form);
  for (const field of fields) {
    if (field.kind === 'boolean') {
      into[field.name] = data.get(field.name) === 'on';
      continue;
    }
    const raw = String(data.get(field.name) ?? '').trim();
    if (raw === '') continue;
    if (field.kind === 'number' || field.kind === 'integer') into[field.name] = Number(raw);
    else if (field.kind === 'json') into[field.name] = parseJson(field.name, raw);
    else into[field.name] = raw;
  }
  return into;
}

/** One property's input, by its kind. */
export function FieldInput({ field }: { field: Field }) {
  const { name, schema, kind, required } = field;
  const initial = schema.default === undefined ? undefined : String(schema.default);
  switch (kind) {
    case 'choice':
      return (
        <select name={name} required={required}>
          {!required && <option value="">(none)</option>}
          {schema.enum!.map((value) => (
            <option key={String(value)} selected={value === schema.default}>
              {String(value)}
            </option>
          ))}
        </select>
      );
    case 'boolean':
      return <input type="checkbox" name={name} checked={schema.default === true} />;
    case 'number':
    case 'integer':
      return (
        <input
          type="number"
          name={name}
          required={required}
          step={kind === 'integer' ? 1 : 'any'}
          min={schema.minimum}
          max={schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER ? schema.maximum : undefined}
          value={initial}
        />
      );
    case 'text':
      return <input name={name} required={required} minLength={schema.minLength} value={initial} />;
    case 'json':
      return (
        <textarea
          name={name}
          required={required}
          rows={2}
          placeholder={placeholderOf(schema)}
          value={schema.default === undefined ? undefined : JSON.stringify(schema.default)}
        />
      );
  }
}

/** What JSON a field takes, as a hint: `{"key": ...}` for an object, `["...", ...]` for a list. */
function placeholderOf(schema: JsonSchema): string {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'object' && schema.properties)
    return `JSON: {${Object.keys(schema.properties)
      .slice(0, 3)
      .map((k) => `"${k}": …`)
      .join(', ')}}`;
  if (type === 'array') return 'JSON: [ … ]';
  return 'JSON';
}
