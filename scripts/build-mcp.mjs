/**
 * `npm run build:mcp`: `statewright mcp` as one bundle (dist/mcp/), which bin/statewright.js starts
 * for `mcp`. An agent starts it and waits only so long for `initialize` (Codex starts its first turn
 * without a server that has not answered): loading the SDK, zod and the CLI's modules one file at
 * a time costs more CPU than everything else it does before answering (bench/mcp-startup.bench.ts).
 * xstate stays a package import, so a config's machines and this code share one copy; native and
 * host-only packages stay out.
 */
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const { dependencies } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// Bundled: what `statewright mcp` loads before it answers.
const BUNDLED = new Set(['@modelcontextprotocol/sdk', 'zod', 'commander']);

await build({
  entryPoints: ['src/cli/main.ts'],
  outdir: 'dist/mcp',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: Object.keys(dependencies).filter((name) => !BUNDLED.has(name)),
  // The SDK's CommonJS dependencies (ajv) require node's modules.
  banner: {
    js: "import { createRequire as __mcp_createRequire } from 'node:module'; const require = __mcp_createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
