/**
 * `npm start`'s build (scripts/build-if-stale.mjs): nothing when every output is newer than every
 * source, as `npm ci` leaves a checkout; the steps of `npm run build` with their progress when an
 * output is missing or a source changed. Run on a copy of the script in a package of its own, whose
 * build steps write the outputs the real one does.
 */
import { copyFileSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OUTPUTS } from '../../scripts/build-if-stale.mjs';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';

const script = fileURLToPath(new URL('../../scripts/build-if-stale.mjs', import.meta.url));

/** A package whose build writes each output. */
function fakePackage(): string {
  const root = testDir('build-if-stale');
  mkdirSync(join(root, 'scripts'));
  copyFileSync(script, join(root, 'scripts', 'build-if-stale.mjs'));
  mkdirSync(join(root, 'src', 'cli'), { recursive: true });
  writeFileSync(join(root, 'src', 'cli', 'main.ts'), 'export {};\n');
  const write = `node -e "const fs=require('fs'),p=require('path');for(const f of ${JSON.stringify(OUTPUTS).replace(/"/g, "'")}){fs.mkdirSync(p.dirname(f),{recursive:true});fs.writeFileSync(f,'')}"`;
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({ name: 'fake', private: true, scripts: { build: `node -e "" && ${write}` } }),
  );
  return root;
}

const build = (root: string) =>
  startCommand(process.execPath, [join(root, 'scripts', 'build-if-stale.mjs')], { cwd: root, reject: false });

describe('npm start builds only what is not built', () => {
  it('builds with progress when an output is missing or a source changed, and not at all when built', async () => {
    const root = fakePackage();
    const first = await build(root);
    expect(first.exitCode).toBe(0);
    expect(first.stderr).toMatch(/^statewright: building \(dist\/src\/index\.js is missing\), 2 steps:\n/);
    expect(first.stderr).toMatch(/\[1\/2\] node -e "" \.\.\. \d+\.\d s\n/);
    expect(first.stderr).toMatch(/\[2\/2\] node -e .* \d+\.\d s\nstatewright: built in \d+\.\d s$/);

    // Built: nothing to do, nothing said.
    const again = await build(root);
    expect([again.exitCode, again.stderr, again.stdout]).toEqual([0, '', '']);

    // An edited source (newer than the build) is built again.
    const at = (ago: number) => new Date(Date.now() - ago);
    // The folders too (a file added or removed changes its folder): all before the build but the one file.
    for (const path of ['package.json', 'scripts', 'src', 'src/cli'])
      utimesSync(join(root, path), at(20_000), at(20_000));
    for (const output of OUTPUTS) utimesSync(join(root, output), at(10_000), at(10_000));
    utimesSync(join(root, 'src', 'cli', 'main.ts'), at(5_000), at(5_000));
    const edited = await build(root);
    expect(edited.stderr).toMatch(/^statewright: building \(src\/cli\/main\.ts changed since the last build\)/);
    expect((await build(root)).stderr).toBe('');
  });

  it('stops at a failing step, saying which, with its exit code', async () => {
    const root = fakePackage();
    writeFileSync(
      join(root, 'package.json'),
      JSON.stringify({ name: 'fake', private: true, scripts: { build: 'node -e "process.exit(3)" && node -e ""' } }),
    );
    const failed = await build(root);
    expect(failed.exitCode).toBe(3);
    expect(failed.stderr).toMatch(/the build failed at `node -e "process\.exit\(3\)"` \(exit 3\)\.$/);
  });
});
