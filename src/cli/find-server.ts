/**
 * How the CLI finds a running `statewright serve` (`--server`, `--token`, else the server files
 * beside the store). The calls themselves are src/client's; which runs must go through a serve is
 * needs-host.ts's.
 */
import { Option } from 'commander';
import { trimUrl, type ServerTarget } from '../client/server-client.js';
import { readServerFiles } from '../serve/server-file.js';
import { storeFiles } from './open-store.js';

export const serverOption = () =>
  new Option(
    '--server <url>',
    'the statewright serve to send this through (default $STATEWRIGHT_SERVER, else one serving --store, found from the files the servers keep beside the store)',
  );
export const tokenOption = () =>
  new Option(
    '--token <secret>',
    "the server's token (default $STATEWRIGHT_TOKEN, else the one in the server's file beside the store)",
  );

/**
 * A server that hosts the store, if one runs: the one `--server` names, else `STATEWRIGHT_SERVER`,
 * else the one started last. Its token is the one given (`--token`, else `STATEWRIGHT_TOKEN`),
 * else the one its server file holds (readable by this user only). Empty variables are unset.
 * `files: false`: no server file is read (nor the holder of a run looked up in them).
 */
export function findServer(
  values: { store?: string; server?: string; token?: string },
  { files: readsFiles = true }: { files?: boolean } = {},
): ServerTarget | undefined {
  const given = values.token ?? (process.env.STATEWRIGHT_TOKEN || undefined);
  const { serverDir } = readsFiles ? storeFiles(values.store) : {};
  const files = serverDir ? readServerFiles(serverDir) : [];
  const found = values.server ?? (process.env.STATEWRIGHT_SERVER || undefined) ?? files[0]?.url;
  if (found === undefined) return undefined;
  const url = trimUrl(found);
  const token = given ?? files.find((file) => trimUrl(file.url) === url)?.token ?? undefined;
  return { url, ...(token && { token }), ...(serverDir && { serverDir }) };
}

/** The host ids of the serves running on the store, from their server files beside it (none for a store elsewhere). */
export function liveHostIds(store: string | undefined): string[] {
  const { serverDir } = storeFiles(store);
  return serverDir ? readServerFiles(serverDir).map((file) => file.hostId) : [];
}
