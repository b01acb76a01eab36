/**
 * Runs a config file and returns what it default-exports, with what it was made from. Every config
 * (TypeScript or JavaScript) is compiled with esbuild first (its own relative imports bundled in,
 * packages left as imports), into a file beside it that is removed at once, so that `import ...
 * from 'statewright'` resolves from the user's folder to the very modules the CLI runs (one copy of
 * each error class and machine), the user installs no loader, and a config read again (serve, on a
 * change) is a new module with its imports read again, never Node's cached copy.
 *
 * The compiled copy holds the whole source in its inline source map, secrets included, so it is
 * 0600 (no other user reads it) and named with the pid of the process that wrote it: a copy left by
 * a process that was killed while running the config is removed by the next one that runs it.
 * (Beside the config, not in a private folder elsewhere: packages resolve from a module's own
 * folder. Not from memory either: Node's module hooks could serve it, but a test runner's own
 * import() looks for the file on disk.)
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { isSameProcessAlive } from '../os/process-identity.js';
import { PRIVATE_FILE_MODE } from '../os/private-files.js';
import { ConfigLoadError } from './config-errors.js';
import { configHash, readInput, type ConfigSource } from './config-source.js';

export interface ImportedConfig {
  /** What the file default-exports. */
  readonly value: unknown;
  readonly source: ConfigSource;
}

export async function importConfig(file: string): Promise<ImportedConfig> {
  const extension = extname(file);
  if (!['.ts', '.mts', '.js', '.mjs'].includes(extension))
    throw new ConfigLoadError(file, `a config is a .ts, .mts, .js or .mjs file, not '${extension || 'no extension'}'.`);
  await removeLeftovers(file);
  const compiled = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.mjs`);
  const { code, source } = await compile(file);
  await writeFile(compiled, code, { mode: PRIVATE_FILE_MODE, flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    throw new ConfigLoadError(
      file,
      `its compiled copy cannot be written beside it (${error.code ?? error.message}): a config needs its folder writable.`,
    );
  });
  try {
    return { value: defaultExport(await importFile(compiled, file)), source };
  } finally {
    await rm(compiled, { force: true });
  }
}

/** A compiled copy of `file`: `.<name>.<pid>.<8 hex>.mjs`, or `.<name>.<8 hex>.mjs` as an older statewright named it. */
const compiledCopy = (file: string) =>
  new RegExp(`^\\.${basename(file).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(?:(\\d+)\\.)?[0-9a-f]{8}\\.mjs$`);

/** Removes the compiled copies of `file` whose process is gone: it was killed while running the config. */
async function removeLeftovers(file: string): Promise<void> {
  const pattern = compiledCopy(file);
  const names = await readdir(dirname(file)).catch(() => [] as string[]);
  for (const name of names) {
    const pid = pattern.exec(name)?.[1];
    if (name.match(pattern) && (pid === undefined || !isSameProcessAlive(Number(pid), undefined)))
      await rm(join(dirname(file), name), { force: true });
  }
}

async function compile(file: string): Promise<{ code: string; source: ConfigSource }> {
  const { build } = await import('esbuild');
  // What each bundled file held when compiled: the hash is of the very text that runs.
  const read = new Map<string, string>();
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
      metafile: true,
      plugins: [ownPaths(read)],
      // A CommonJS config's require() of a package, in the ES module it is compiled to.
      banner: {
        js: "import { createRequire as __config_createRequire } from 'node:module'; const require = __config_createRequire(import.meta.url);",
      },
      define: { 'import.meta.url': '__config_url', __dirname: '__config_dirname', __filename: '__config_filename' },
    });
    const inputs = Object.keys(result.metafile.inputs)
      .map((input) => resolve(input))
      .sort();
    return {
      code: result.outputFiles[0]!.text,
      source: { file, inputs, hash: configHash(file, inputs, (input) => read.get(input) ?? readInput(input)) },
    };
  } catch (error) {
    const errors = (error as { errors?: Array<{ text: string; location?: { file: string; line: number } | null }> })
      .errors;
    const first = errors?.[0];
    const where = first?.location;
    // A file the plugin loaded has one line more than on disk: the names it puts before it.
    const line = where && (ownPathsFilter.test(where.file) ? where.line - 1 : where.line);
    throw new ConfigLoadError(file, first ? `${where ? `${where.file}:${line}: ` : ''}${first.text}` : String(error));
  }
}

/** The files `ownPaths` loads: TypeScript and JavaScript. */
const ownPathsFilter = /\.[cm]?[jt]s$/;

/** Each bundled file keeps its own `import.meta.url`, `__dirname` and `__filename`, not the compiled file's. */
const ownPaths = (read: Map<string, string>): Plugin => ({
  name: 'statewright-config-paths',
  setup(build) {
    build.onLoad({ filter: ownPathsFilter }, async ({ path }) => {
      const contents = await readFile(path, 'utf8');
      read.set(path, contents);
      const names = `const __config_url = ${JSON.stringify(pathToFileURL(path).href)}, __config_dirname = ${JSON.stringify(dirname(path))}, __config_filename = ${JSON.stringify(path)};`;
      return { contents: `${names}\n${contents}`, loader: extname(path).endsWith('ts') ? 'ts' : 'js' };
    });
  },
});

async function importFile(path: string, shownAs: string): Promise<Record<string, unknown>> {
  try {
    return await import(pathToFileURL(path).href);
  } catch (error) {
    throw new ConfigLoadError(shownAs, `running it threw: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `export default`, or `module.exports` of a CommonJS file (which the compiled module also names `default`). */
function defaultExport(module: Record<string, unknown>): unknown {
  return module.default;
}
