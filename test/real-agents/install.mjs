// Installs the real agent CLIs the tests drive (@anthropic-ai/claude-code, @openai/codex, pinned in
// this folder's package.json and lock file) when they are missing or not the pinned versions. Run by
// `npm test` before the suite; about 8 s and 760 MB the first time, nothing after. They are never
// dependencies of the statewright package. Claude Code's postinstall is not needed: the
// platform package's binary is run directly (real-agents.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pinned = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).dependencies;

function installedVersion(name) {
  const file = join(here, 'node_modules', name, 'package.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).version : undefined;
}

const stale = Object.entries(pinned).filter(([name, version]) => installedVersion(name) !== version);
if (stale.length === 0) process.exit(0);
console.log(
  `installing the real agent CLIs for the tests (${stale.map(([n, v]) => `${n}@${v}`).join(', ')}) in ${here}`,
);
execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: here, stdio: 'inherit' });
