/**
 * Runs a config file and returns what it default-exports. JavaScript is imported as it is; a
 * TypeScript config is compiled with esbuild first (its own relative imports bundled in, packages
 * left as imports), into a file beside it that is removed at once, so that `import ... from
 * 'statewright'` resolves from the user's folder to the very modules the CLI runs (one copy of each
 * error class and machine), and the user installs no loader.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { ConfigLoadError } from './config-errors.js';

export async function importConfig(file: string): Promise<unknown> {
  const extension = extname(file);
  if (extension === '.js' || extension === '.mjs') return defaultExport(await importFile(file, file));
  if (extension !== '.ts' && extension !== '.mts')
    throw new ConfigLoadError(file, `a config is a .ts, .mts, .js or .mjs file, not '${extension || 'no extension'}'.`);
  const compiled = join(dirname(file), `.${basename(file)}.${randomBytes(4).toString('hex')}.mjs`);
  const code = await compile(file);
  await writeFile(compiled, code).catch((error: NodeJS.ErrnoException) => {
    throw new ConfigLoadError(
      file,
      `its compiled copy cannot be written beside it (${error.code ?? error.message}): a TypeScript config needs its folder writable, or write it as statewright.config.mjs.`,
    );
  });
  try {
    return defaultExport(await importFile(compiled, file));
  } finally {
    await rm(compiled, { force: true });
  }
}

async function compile(file: string): Promise<string> {
  const { build } = await import('esbuild');
  try {
    const result = await build({
      entryPoints: [file],
      bundle: true,
      packages: 'external',
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      sourcemap: 'inline',
      plugins: [ownPaths],
      define: { 'import.meta.url': '__config_url', __dirname: '__config_dirname', __filename: '__config_filename' },
    });
    return result.outputFiles[0]!.text;
  } catch (error) {
    const errors = (error as { errors?: Array<{ text: string; location?: { file: string; line: number } | null }> })
      .errors;
    const first = errors?.[0];
    throw new ConfigLoadError(
      file,
      first ? `${first.location ? `${first.location.file}:${first.location.line}: ` : ''}${first.text}` : String(error),
    );
  }
}

/** Each bundled file keeps its own `import.meta.url`, `__dirname` and `__filename`, not the compiled file's. */
const ownPaths: Plugin = {
  name: 'statewright-config-paths',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?[jt]s$/ }, async ({ path }) => {
      const contents = await readFile(path, 'utf8');
      const names = `const __config_url = ${JSON.stringify(pathToFileURL(path).href)}, __config_dirname = ${JSON.stringify(dirname(path))}, __config_filename = ${JSON.stringify(path)};`;
      return { contents: `${names}\n${contents}`, loader: extname(path).endsWith('ts') ? 'ts' : 'js' };
    });
  },
};

async function importFile(path: string, shownAs: string): Promise<Record<string, unknown>> {
  try {
    return await import(pathToFileURL(path).href);
  } catch (error) {
    throw new ConfigLoadError(shownAs, `running it threw: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `export default`, or `module.exports` of a CommonJS file (which import() also names `default`). */
function defaultExport(module: Record<string, unknown>): unknown {
  return module.default;
}
