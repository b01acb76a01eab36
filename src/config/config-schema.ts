/** What a config must export, checked before anything is hosted: each problem named with where it is. */
import type { AnyStateMachine } from 'xstate';
import { z } from 'zod';
import { finalStateNames, OUTCOMES } from '../graph/index.js';
import type { StatewrightConfig } from './define-config.js';
import { InvalidConfigError } from './config-errors.js';

/** How a lifecycle may be named: it appears in URLs, run listings and file names. */
export const LIFECYCLE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

const fn = z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', 'a function');

const machine = z.custom<object>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { transition?: unknown }).transition === 'function' &&
    typeof (value as { config?: unknown }).config === 'object',
  'an XState machine (from createMachine or setup(...).createMachine)',
);

const lifecycle = z.looseObject({
  name: z
    .string()
    .regex(LIFECYCLE_NAME, 'a name of letters, digits, - and _, starting with a letter (at most 64 characters)'),
  machine,
  version: z.number().int().positive(),
  summary: z.string(),
  input: z
    .custom<object>(
      (value) => typeof value === 'object' && value !== null && '_zod' in value,
      'a zod 4 schema (z.object({ ... })) of what a run is started with',
    )
    .optional(),
  recover: fn.optional(),
  explain: fn.optional(),
  statusNote: fn.optional(),
  migrations: z.record(z.string().regex(/^\d+$/, 'a version number'), fn).optional(),
  indexes: z.record(z.string(), z.looseObject({ order: z.enum(['asc', 'desc']), of: fn })).optional(),
  events: z.array(z.string()).optional(),
  personEvents: z.array(z.string()).optional(),
  strict: z.boolean().optional(),
  outcomes: z.record(z.string(), z.enum(OUTCOMES)).optional(),
  eventSchemas: z
    .record(
      z.string(),
      z.custom<object>((value) => typeof (value as { safeParse?: unknown })?.safeParse === 'function', 'a zod schema'),
    )
    .optional(),
  testEvents: z
    .union([fn, z.record(z.string(), z.union([fn, z.array(z.looseObject({ type: z.string() }))]))])
    .optional(),
  testInputs: z.array(z.unknown()).optional(),
  testContextKey: fn.optional(),
  testActors: z.record(z.string(), z.looseObject({})).optional(),
  waitsFor: z
    .record(
      z.string(),
      z.union([
        z.string(),
        z.looseObject({
          summary: z.string(),
          approve: z.looseObject({ type: z.string() }).optional(),
          deny: z.looseObject({ type: z.string() }).optional(),
        }),
      ]),
    )
    .optional(),
});

const configSchema = z.strictObject({
  machines: z.array(lifecycle),
  actors: z.record(z.string(), z.record(z.string(), fn)).optional(),
  store: z.string().min(1).optional(),
  builtins: z.boolean().optional(),
});

/** The config `file` exported, checked: `InvalidConfigError` listing every problem, else the config. */
export function checkConfig(file: string, exported: unknown): StatewrightConfig {
  if (exported === undefined) throw new InvalidConfigError(file, ['it has no default export']);
  const parsed = configSchema.safeParse(exported);
  if (!parsed.success)
    throw new InvalidConfigError(
      file,
      parsed.error.issues.map(
        (issue) => `${issue.path.length ? issue.path.join('.') : 'the export'}: ${issue.message}`,
      ),
    );
  const config = exported as StatewrightConfig;
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const { name, machine, outcomes } of config.machines) {
    if (seen.has(name)) problems.push(`two machines are named '${name}'`);
    seen.add(name);
    const finals = finalStateNames(machine as AnyStateMachine);
    for (const state of Object.keys(outcomes ?? {}))
      if (!finals.includes(state))
        problems.push(
          `${name}.outcomes.${state}: '${state}' is not a final state of its machine (its final states: ${finals.join(', ') || 'none'})`,
        );
  }
  for (const name of Object.keys(config.actors ?? {}))
    if (!seen.has(name)) problems.push(`actors.${name}: no machine of the config is named '${name}'`);
  if (problems.length) throw new InvalidConfigError(file, problems);
  return config;
}
