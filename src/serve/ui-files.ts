/**
 * The live view's built files (`dist/ui/`, from `vite build` of `ui/`), served at `/`. Paths are
 * kept inside that folder; an unknown path without an extension gets index.html (the view routes
 * in the browser). Without a build, `/` says how to make one.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>statewright</title>
<h1>statewright serve</h1>
<p>The live view is not built: run <code>npm run build</code>, then reload this page.</p>
<p>The API answers under <a href="/api/runs">/api</a>.</p>
`;

/** The package's root: the nearest folder above this file with a package.json (from src/ or from dist/src/). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

export const DEFAULT_UI_DIR = join(packageRoot(), 'dist', 'ui');

/** The file to answer `path` with, or undefined (404). */
export function uiFile(uiDir: string, path: string): { body: Buffer | string; type: string } | undefined {
  const root = resolve(uiDir);
  const index = join(root, 'index.html');
  if (!existsSync(index))
    return path === '/' || path === '/index.html' ? { body: NOT_BUILT, type: TYPES['.html']! } : undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined; // not a name any file could have
  }
  const wanted = resolve(root, normalize(decoded).replace(/^[/\\]+/, ''));
  if (wanted !== root && !wanted.startsWith(root + sep)) return undefined;
  if (existsSync(wanted) && statSync(wanted).isFile())
    return { body: readFileSync(wanted), type: TYPES[extname(wanted)] ?? 'application/octet-stream' };
  if (extname(wanted) === '') return { body: readFileSync(index), type: TYPES['.html']! };
  return undefined;
}
