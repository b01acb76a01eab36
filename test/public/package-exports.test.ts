/**
 * Every subpath in package.json's `exports` resolves to built JavaScript and its declarations, and
 * each lifecycle's subpath gives its service in the one shape (`<lifecycle>Lifecycle`). Reads `dist/`,
 * which `npm test` builds first.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  exports: Record<string, { types: string; default: string }>;
};
const lifecycleSubpaths: Record<string, string> = {
  './session': 'sessionLifecycle',
  './codon': 'codonLifecycle',
  './review-loop': 'reviewLoopLifecycle',
  './task': 'taskLifecycle',
};

describe('package exports', () => {
  it.each(Object.entries(pkg.exports))('%s resolves to built code and declarations', async (subpath, target) => {
    expect(existsSync(new URL(target.types, root)), target.types).toBe(true);
    const module = (await import(new URL(target.default, root).href)) as Record<string, unknown>;
    expect(Object.keys(module).length).toBeGreaterThan(0);
    const service = lifecycleSubpaths[subpath];
    if (service) expect(typeof module[service], `${subpath} exports ${service}`).toBe('function');
  });

  it('has a subpath for every lifecycle service', () => {
    expect(Object.keys(pkg.exports)).toEqual(expect.arrayContaining(Object.keys(lifecycleSubpaths)));
  });
});
