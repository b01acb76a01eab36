/**
 * `npm run build:cli`: the `statewright` command as one bundle (dist/cli/), which bin/statewright.js
 * starts. Scripts and agents call the CLI hundreds of times, and an agent waits for `statewright
 * mcp`'s `initialize` answer only so long: loading the modules one file at a time costs most of a
 * command's start (bench/cli-startup.bench.ts, bench/mcp-startup.bench.ts). Each command stays a
 * chunk of its own, loaded when its name is on the command line (src/cli/commands/index.ts).
 * xstate stays a package import, so a config's machines and this code share one copy; native and
 * host-only packages stay out.
 *
 * Then the command list (dist/cli/command-list.json): each command's name and line in
 * `statewright help`, taken from the whole program, so that help and --help list the commands
 * without loading any command's implementation (src/cli/command-list.ts).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { build } from 'esbuild';

const { dependencies } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// Bundled: what every command loads before it does anything.
const BUNDLED = new Set(['@modelcontextprotocol/sdk', 'zod', 'commander']);

/**
 * zod's namespace (`z`) carries its error messages in every language (`z.locales`), which no
 * statewright code reads: they were 400 of the 750 KB every command with a schema compiled. The
 * bundle's zod keeps English alone (its default); a config's own zod is its own package import.
 */
const englishOnly = {
  name: 'zod-english-only',
  setup(plugin) {
    plugin.onResolve({ filter: /[\\/]locales[\\/]index\.js$/ }, ({ path, importer }) =>
      /[\\/]zod[\\/]/.test(importer) ? { path: `${dirname(importer)}/${path}`, namespace: 'zod-locales' } : undefined,
    );
    plugin.onLoad({ filter: /.*/, namespace: 'zod-locales' }, ({ path }) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: dirname(path),
    }));
  },
};

// Chunks are named by their content: the last build's would stay beside the new ones.
rmSync(new URL('../dist/cli', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ['src/cli/main.ts'],
  outdir: 'dist/cli',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: Object.keys(dependencies).filter((name) => !BUNDLED.has(name)),
  // The SDK's CommonJS dependencies (ajv) require node's modules.
  banner: {
    js: "import { createRequire as __cli_createRequire } from 'node:module'; const require = __cli_createRequire(import.meta.url);",
  },
  plugins: [englishOnly],
  logLevel: 'warning',
});

// The whole program as tsc built it (dist/src/), listed as help lists it.
const { createProgram } = await import('../dist/src/cli/program.js');
const { listCommands } = await import('../dist/src/cli/command-list.js');
const { Readable } = await import('node:stream');
const program = await createProgram({
  io: { stdin: Readable.from([]), writeOut: () => {}, writeErr: () => {} },
  exitsWith: (run) => run,
  registry: () => Promise.reject(new Error('listing the commands reads no registry')),
  configFile: () => undefined,
});
writeFileSync(new URL('../dist/cli/command-list.json', import.meta.url), `${JSON.stringify(listCommands(program))}\n`);
