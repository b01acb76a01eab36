/**
 * The package as a user gets it: `npm pack` of this checkout (built by `npm test` before the
 * suite), installed from the tarball into a fresh folder with `xstate`, as a new user would. Its
 * bin, its exports and its files are what the tests then use: nothing of the checkout.
 *
 * The install skips install scripts: better-sqlite3's would compile the addon for a minute (no
 * prebuilt binary can be fetched here), so the checkout's own build of the same version, for the
 * same Node, is copied in. Everything else is the registry's.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

const root = fileURLToPath(new URL('../../', import.meta.url));
const versionOf = (name: string): string =>
  JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;

export interface InstalledPackage {
  /** The user's folder: package.json, node_modules with statewright and xstate. */
  readonly dir: string;
  /** The installed `statewright` bin. */
  readonly bin: string;
  /** The installed package's own folder (its stand-in agents under examples/agents). */
  readonly packageDir: string;
  remove(): void;
}

export async function installPackedPackage(): Promise<InstalledPackage> {
  const dir = mkdtempSync(join(tmpdir(), 'statewright-packed-'));
  try {
    const packed = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: root });
    const tarball = join(dir, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename);
    const app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'my-app', private: true }));
    const sqlite = `better-sqlite3@${versionOf('better-sqlite3')}`;
    await execa(
      'npm',
      ['install', tarball, sqlite, `xstate@${versionOf('xstate')}`, '--ignore-scripts', '--prefer-offline'],
      { cwd: app, env: { npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } },
    );
    const addon = join('node_modules', 'better-sqlite3', 'build', 'Release');
    cpSync(join(root, addon), join(app, addon), { recursive: true });
    const packageDir = join(app, 'node_modules', 'statewright');
    return {
      dir: app,
      bin: join(packageDir, 'bin', 'statewright.js'),
      packageDir,
      remove: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
