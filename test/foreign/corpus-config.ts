/**
 * A user's statewright.config.ts that registers every hostable corpus machine with
 * `defineLifecycle`, under its corpus name, beside a SQLite store: what `statewright serve` and the
 * CLI are started with in the corpus's process tests. The config imports the corpus from this
 * checkout (the config loader bundles those files in; `xstate` resolves through a link to this
 * checkout's node_modules, so serve and the config share one XState).
 */
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Writes the config (and the node_modules link) into `dir`; its store is `dir`/runs.db. */
export function writeCorpusConfig(dir: string): { readonly store: string } {
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const from = (path: string) => JSON.stringify(join(root, path));
  writeFileSync(
    join(dir, 'statewright.config.ts'),
    `import { defineConfig } from ${from('src/config/define-config.ts')};
import { defineLifecycle } from ${from('src/config/define-lifecycle.ts')};
import { hostableMachines } from ${from('test/foreign/corpus.ts')};

export default defineConfig({
  store: 'sqlite:runs.db',
  builtins: false,
  machines: hostableMachines.map((entry) =>
    defineLifecycle({ name: entry.name, machine: entry.machine, summary: \`from \${entry.origin}\` }),
  ),
});
`,
  );
  return { store: join(dir, 'runs.db') };
}
