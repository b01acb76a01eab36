import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { StatewrightError } from '../errors.js';

/** The package whose version `statewright --version` prints. */
const PACKAGE_NAME = 'statewright';

/** statewright's own package.json is missing above the module: the installed package is incomplete. */
export class PackageJsonMissingError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'PackageJsonMissingError';
  constructor(from: string) {
    super(
      `statewright cannot find its own package.json (name "${PACKAGE_NAME}") in ${from} or any folder above it: the package is incomplete. Reinstall it (npm install statewright), or run \`npm run build\` in a checkout.`,
    );
  }
}

/**
 * The version in statewright's own package.json: the nearest package.json named statewright in the
 * module's folder or above it (src/cli/ in a checkout run from source, dist/src/cli/ in a build or
 * an installed package), so it is the version of the code that runs, wherever it is installed.
 */
export function packageVersion(from: string | URL = import.meta.url): string {
  return ownPackageJson(from).json.version as string;
}

/**
 * The statewright bin of the code that runs, absolute: what a host gives its sessions to start
 * `statewright mcp` with (`node <bin> mcp`), whichever folder they run in.
 */
export function statewrightBin(from: string | URL = import.meta.url): string {
  return fileURLToPath(new URL('./bin/statewright.js', ownPackageJson(from).url));
}

function ownPackageJson(from: string | URL): { url: URL; json: { name?: unknown; version?: unknown } } {
  let url = new URL('./package.json', from);
  for (;;) {
    const json = readJson(url);
    if (json?.name === PACKAGE_NAME && typeof json.version === 'string') return { url, json };
    const parent = new URL('../package.json', url);
    if (parent.href === url.href) throw new PackageJsonMissingError(fileURLToPath(new URL('.', from)));
    url = parent;
  }
}

function readJson(url: URL): { name?: unknown; version?: unknown } | undefined {
  try {
    return JSON.parse(readFileSync(url, 'utf8')) as { name?: unknown; version?: unknown };
  } catch {
    // None here (or not JSON, as a stray package.json can be): look further up.
    return undefined;
  }
}
