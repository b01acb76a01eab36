/**
 * `statewright open`: the live view's URL, for a serve of the store, read from its server file
 * (readable only by the user who started serve): printed, or with `--browser` opened. The opener
 * is handed a file beside the server file (0600, in the 0700 folder, removed with it when serve
 * stops) that sends the browser on to the URL, never the URL itself: a command line is readable by
 * every user of the machine.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { StatewrightError } from '../../errors.js';
import { openInBrowser } from '../open-in-browser.js';
import { readServerFiles, viewPagePath, type ServerFile } from '../../serve/server-file.js';
import { viewUrl } from '../../serve/view-url.js';
import type { Cli } from '../command.js';
import { storeFiles, storeOption } from '../open-store.js';

interface OpenOptions {
  readonly store?: string;
  readonly server?: string;
  readonly browser?: boolean;
}

/** No serve of the store runs on this machine (none with a server file beside it). */
export class NoViewError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'NoViewError';
  constructor(store: string | undefined, server: string | undefined, running: readonly ServerFile[]) {
    super(
      server !== undefined && running.length > 0
        ? `No statewright serve of this store answers at ${server}: those running are at ${running.map((f) => f.url).join(', ')}.`
        : `No statewright serve is running for this store${store ? ` (${store})` : ''}: start one with ` +
            `\`npx statewright serve${store ? ` --store ${store}` : ''}\`, which prints the view's URL.`,
    );
  }
}

/** The page the opener is given: it sends the browser on to the view's URL, which stays out of any command line. */
const redirectPage = (url: string) => `<!doctype html><meta charset="utf-8"><title>statewright</title>
<meta http-equiv="refresh" content="0; url=${url.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">
<p>Opening the statewright live view...</p>
`;

export const openCommand = (cli: Cli) =>
  new Command('open')
    .summary("print the live view's URL (its token included), or open it in the browser")
    .description(
      "The live view's URL of the statewright serve running for the store, read from the server file beside it " +
        '(written 0600 by serve for the user who started it): the URL serve printed when it started. ' +
        'With several serves on the store, the one started last, or the one --server names.',
    )
    .option('--browser', 'open it in the browser ($BROWSER, else the platform opener) instead of printing it')
    .option('--server <url>', 'which serve of the store (default: the one started last)')
    .addOption(storeOption())
    .action(
      cli.exitsWith(async (values: OpenOptions) => {
        const { serverDir } = storeFiles(values.store);
        const running = serverDir ? readServerFiles(serverDir) : [];
        const wanted = values.server?.replace(/\/+$/, '');
        const file = wanted === undefined ? running[0] : running.find((f) => f.url.replace(/\/+$/, '') === wanted);
        if (!file || !serverDir) throw new NoViewError(values.store, values.server, running);
        const url = viewUrl(file.url, file.token);
        if (!values.browser) {
          process.stdout.write(`${url}\n`);
          return 0;
        }
        const page = viewPagePath(serverDir, file.hostId);
        // Written anew, never through a link planted under its name.
        rmSync(page, { force: true });
        writeFileSync(page, redirectPage(url), { mode: 0o600, flag: 'wx' });
        await openInBrowser(page);
        process.stdout.write(`Opened the live view of ${file.url} in the browser (through ${page}).\n`);
        return 0;
      }),
    );
