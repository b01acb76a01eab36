/**
 * A value a JSON Schema accepts (zod's `z.toJSONSchema`), the plainest one: the least number, the
 * shortest string, required fields only. What a generated path sends where nobody gave an event.
 * Undefined where the schema says too little or too much to build one (a pattern, a format, a
 * reference): the caller reports the event, never sends a guess.
 */
type Schema = Record<string, unknown>;

const FORMATS: Record<string, string> = {
  email: 'test@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
  'date-time': '2026-01-01T00:00:00.000Z',
  date: '2026-01-01',
};

export function sampleOfSchema(schema: unknown, depth = 0): { value: unknown } | undefined {
  if (depth > 16 || schema === null || typeof schema !== 'object') return schema === true ? { value: null } : undefined;
  const s = schema as Schema;
  if ('const' in s) return { value: s.const };
  if (Array.isArray(s.enum) && s.enum.length) return { value: s.enum[0] };
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[key])) {
      for (const option of s[key] as unknown[]) {
        const sample = sampleOfSchema(option, depth + 1);
        if (sample) return sample;
      }
      return undefined;
    }
  }
  if (Array.isArray(s.allOf)) return s.allOf.length === 1 ? sampleOfSchema(s.allOf[0], depth + 1) : undefined;
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      return stringSample(s);
    case 'number':
    case 'integer':
      return numberSample(s, type === 'integer');
    case 'boolean':
      return { value: false };
    case 'null':
      return { value: null };
    case 'array': {
      const count = typeof s.minItems === 'number' ? s.minItems : 0;
      if (count === 0) return { value: [] };
      const item = sampleOfSchema(s.items, depth + 1);
      return item && { value: Array.from({ length: count }, () => item.value) };
    }
    case 'object':
      return objectSample(s, depth);
    default:
      // No type: any value will do where nothing else is said.
      return Object.keys(s).filter((k) => !k.startsWith('$') && k !== 'description').length
        ? undefined
        : { value: null };
  }
}

function stringSample(s: Schema): { value: string } | undefined {
  if (typeof s.pattern === 'string') return undefined;
  if (typeof s.format === 'string') return FORMATS[s.format] === undefined ? undefined : { value: FORMATS[s.format]! };
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  return { value: 'x'.repeat(Math.max(min, 1)) };
}

function numberSample(s: Schema, integer: boolean): { value: number } | undefined {
  let value = 0;
  if (typeof s.minimum === 'number') value = Math.max(value, s.minimum);
  if (typeof s.exclusiveMinimum === 'number') value = Math.max(value, s.exclusiveMinimum + 1);
  if (typeof s.maximum === 'number' && value > s.maximum) value = s.maximum;
  if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum) value = s.exclusiveMaximum - 1;
  if (integer) value = Math.ceil(value);
  return { value };
}

function objectSample(s: Schema, depth: number): { value: Record<string, unknown> } | undefined {
  const properties = (s.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(s.required) ? (s.required as string[]) : [];
  const value: Record<string, unknown> = {};
  for (const key of required) {
    const sample = sampleOfSchema(properties[key] ?? {}, depth + 1);
    if (!sample) return undefined;
    value[key] = sample.value;
  }
  return { value };
}
