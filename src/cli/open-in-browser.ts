/**
 * Opens a local file in the user's browser: `$BROWSER` when set (as many tools honour it), else the
 * platform's opener (`open` on macOS, `start` on Windows, `xdg-open` elsewhere). Started detached,
 * not waited for. A file, not a URL with a secret in it: a command line is readable by every user of
 * the machine (`ps`, /proc), and a browser it starts may keep the URL in its own for its whole life.
 */
import { spawn } from 'node:child_process';
import { StatewrightError } from '../errors.js';

/** No opener could be started. */
export class NoBrowserOpenerError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'NoBrowserOpenerError';
  constructor(
    readonly command: string,
    reason: string,
  ) {
    super(
      `Could not open a browser with '${command}' (${reason}): open the URL above by hand, ` +
        'or set BROWSER to the command that opens a file in yours.',
    );
  }
}

export function openerCommand(platform: NodeJS.Platform = process.platform): string[] {
  const browser = process.env.BROWSER?.trim();
  if (browser) return [browser];
  if (platform === 'darwin') return ['open'];
  if (platform === 'win32') return ['cmd', '/c', 'start', '""'];
  return ['xdg-open'];
}

/** Resolves once the opener has started (it is not waited for); rejects with `NoBrowserOpenerError` if it cannot be. */
export function openInBrowser(file: string): Promise<void> {
  const [command, ...args] = openerCommand();
  return new Promise((resolve, reject) => {
    const child = spawn(command!, [...args, file], { detached: true, stdio: 'ignore' });
    child.once('error', (error) => reject(new NoBrowserOpenerError(command!, error.message)));
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
