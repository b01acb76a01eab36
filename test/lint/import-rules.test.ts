/**
 * The import rules of .dependency-cruiser.cjs (`npm run lint:deps`) catch what they are written
 * for: dependency-cruiser runs with the project's configuration on a small tree that breaks each
 * rule once, type-only imports included, beside imports the rules allow.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterEach, expect, it } from 'vitest';
import { tempDir } from '../stores/temp-dir.js';

const root = join(import.meta.dirname, '../..');

const tree: Record<string, string> = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true },
  }),
  'machines/lifecycle.ts': 'export interface Lifecycle { readonly version: number }\n',
  'machines/index.ts':
    "import type { Lifecycle } from './lifecycle.js';\nexport const lifecycles: Record<string, Lifecycle> = {};\n",
  'machines/impure.ts': "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n",
  'src/runtime/allowed.ts':
    "import type { Lifecycle } from '../../machines/lifecycle.js';\nexport type Hosted = Lifecycle;\n",
  'src/runtime/registry.ts':
    "import type { lifecycles } from '../../machines/index.js';\nexport type Registry = typeof lifecycles;\n",
  'src/runtime/hosts.ts': "import type { Handle } from '../actor-contract/handle.js';\nexport type Hosts = Handle;\n",
  'src/runtime/spawn.ts': "import type { Agent } from '../actors/agent.js';\nexport type Spawn = Agent;\n",
  'src/actor-contract/handle.ts':
    "import type { Hosted } from '../runtime/allowed.js';\nexport type Handle = Hosted;\n",
  'src/actors/agent.ts': "import type { Hosted } from '../runtime/allowed.js';\nexport type Agent = Hosted;\n",
  'src/actors/timer.ts': "import type { Handle } from '../actor-contract/handle.js';\nexport type Timer = Handle;\n",
  'src/stores/store.ts': "import type { Hosted } from '../runtime/allowed.js';\nexport type Stored = Hosted;\n",
  'src/graph/table.ts':
    "import type { Lifecycle } from '../../machines/lifecycle.js';\nexport type Table = Lifecycle;\n",
  'src/os/identity.ts': "import type { Hosted } from '../runtime/allowed.js';\nexport type Identity = Hosted;\n",
  'src/session/daemon.ts': "import type { Manager } from '../codon/manager.js';\nexport type Daemon = Manager;\n",
  'src/codon/manager.ts': "import type { View } from './view.js';\nexport interface Manager { view: View }\n",
  'src/codon/view.ts': "import type { Manager } from './manager.js';\nexport interface View { manager: Manager }\n",
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

it('reports each broken rule, a cycle of type-only imports included, and nothing that is allowed', async () => {
  const dir = await tempDir('import-rules');
  cleanups.push(() => dir.remove());
  for (const [path, text] of Object.entries(tree)) {
    mkdirSync(dirname(join(dir.path, path)), { recursive: true });
    writeFileSync(join(dir.path, path), text);
  }
  const result = await execa(
    join(root, 'node_modules/.bin/depcruise'),
    ['--config', join(root, '.dependency-cruiser.cjs'), '--output-type', 'json', 'src', 'machines'],
    { cwd: dir.path, reject: false },
  );
  const { summary } = JSON.parse(result.stdout) as {
    summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> };
  };
  expect(summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort()).toEqual([
    'actor-contract-stands-alone: src/actor-contract/handle.ts -> src/runtime/allowed.ts',
    'actors-import-the-contract: src/actors/agent.ts -> src/runtime/allowed.ts',
    'graph-imports-no-lifecycle: src/graph/table.ts -> machines/lifecycle.ts',
    'lifecycle-services-apart: src/session/daemon.ts -> src/codon/manager.ts',
    'machines-are-pure: machines/impure.ts -> fs',
    'no-cycles: src/codon/manager.ts -> src/codon/view.ts',
    'os-helpers-stand-alone: src/os/identity.ts -> src/runtime/allowed.ts',
    'runtime-imports-no-actor: src/runtime/spawn.ts -> src/actors/agent.ts',
    'runtime-names-no-lifecycle: src/runtime/registry.ts -> machines/index.ts',
    'stores-below-runtime: src/stores/store.ts -> src/runtime/allowed.ts',
  ]);
}, 60_000);
