/** The live view's files as serve answers them: the build, the page for the view's own paths, and a page saying how to build it. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { uiFile } from '../../src/serve/ui-files.js';
import { testDir } from '../stores/temp-dir.js';

describe('the live view files', () => {
  it('says how to build the view when there is no build, and serves nothing else', () => {
    const dir = testDir('ui-none');
    expect(uiFile(dir, '/')).toMatchObject({
      type: 'text/html; charset=utf-8',
      body: expect.stringMatching(/run <code>npm run build<\/code>/),
    });
    expect(uiFile(dir, '/assets/index.js')).toBeUndefined();
  });

  it('serves the build, the page for paths of the view, and nothing outside the folder', () => {
    const parent = testDir('ui-built');
    const dir = join(parent, 'ui');
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<div id="app"></div>');
    writeFileSync(join(dir, 'assets', 'index.js'), 'render()');
    writeFileSync(join(parent, 'secret.txt'), 'secret');
    expect(String(uiFile(dir, '/')!.body)).toBe('<div id="app"></div>');
    expect(uiFile(dir, '/assets/index.js')).toMatchObject({ type: 'text/javascript; charset=utf-8' });
    expect(String(uiFile(dir, '/assets/index.js')!.body)).toBe('render()');
    expect(String(uiFile(dir, '/runs/build-1')!.body)).toBe('<div id="app"></div>');
    expect(uiFile(dir, '/assets/missing.js')).toBeUndefined();
    expect(uiFile(dir, '/../secret.txt')).toBeUndefined();
    expect(uiFile(dir, '/%2e%2e/secret.txt')).toBeUndefined();
  });
});
