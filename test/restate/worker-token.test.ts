/**
 * `statewright worker` (the built CLI) refuses to start where anyone could drive its run objects:
 * without a token, with a weak one, or `--no-token` for a Restate server off loopback. Each refusal
 * comes before anything is served or registered (no Restate server runs here: a worker that got as
 * far as registering would fail otherwise), and says what to do.
 */
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';

const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));

async function worker(args: string[], token?: string) {
  const result = await startCommand(process.execPath, [bin, 'worker', '--port', '0', ...args], {
    cwd: testDir('worker-token'),
    reject: false,
    env: { STATEWRIGHT_CONFIG: '', STATEWRIGHT_RESTATE_TOKEN: token ?? '' },
  });
  return { code: result.exitCode, err: String(result.stderr) };
}

it('refuses to start without a token, with a weak one, or with --no-token off loopback', {
  timeout: 60_000,
}, async () => {
  const none = await worker(['--restate-admin', 'http://127.0.0.1:9']);
  expect(none.code).toBe(1);
  expect(none.err).toMatch(/Refusing to start the worker: it has no token.*STATEWRIGHT_RESTATE_TOKEN/s);

  const weak = await worker(['--restate-admin', 'http://127.0.0.1:9'], 'short');
  expect(weak.code).toBe(1);
  expect(weak.err).toMatch(/its token is 5 characters/);

  for (const args of [
    ['--restate-admin', 'http://10.1.2.3:9070'],
    ['--restate-admin', 'http://127.0.0.1:9', '--restate-ingress', 'http://restate.example:8080'],
  ]) {
    const open = await worker([...args, '--no-token']);
    expect(open.code, args.join(' ')).toBe(1);
    expect(open.err, args.join(' ')).toMatch(
      /--no-token is for a Restate server only this machine reaches, and \S+ is not on loopback/,
    );
  }
});
