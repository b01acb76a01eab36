/**
 * The root export is the surface a user learns: every name it publishes is documented in
 * docs/api.md (the public surface, which the README links to), and the internals it used to leak
 * (guard plumbing, OS helpers) stay out.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as root from '../../src/index.js';

const surface = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
const source = readFileSync(new URL('../../src/index.ts', import.meta.url), 'utf8');
/** The type-only names the root export lists (`type X` inside its export lists). */
const typeNames = [...source.matchAll(/\btype (\w+)/g)].map((m) => m[1]!);
const documented = (name: string) => new RegExp(`\\b${name}\\b`).test(surface);

describe('the root export', () => {
  it('publishes only names docs/api.md documents', () => {
    const names = [...Object.keys(root), ...typeNames];
    expect(names.length).toBeGreaterThan(40);
    expect(names.filter((name) => !documented(name))).toEqual([]);
  });

  it('keeps internals out', () => {
    for (const internal of [
      'metadataGuardFailure',
      'metadataErrorFromIssues',
      'namedEdgeOf',
      'roleGuardFailure',
      'explainedGuardFailure',
      'currentStateName',
      'allStateNodes',
      'stateName',
      'diagramModel',
      'processStartTime',
      'isProcessAlive',
    ]) {
      expect(root, internal).not.toHaveProperty(internal);
    }
  });
});
