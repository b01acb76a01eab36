/**
 * `--store memory` for a command that exits when done is refused, saying why and what to do:
 * its runs would be gone as it exits, and it would read an empty store of its own. Through the
 * `serve --store memory` that holds them (`--server`), the same commands work.
 */
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';
import { startServeProcess } from '../support/serve-process.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
const cli = (cwd: string, ...args: string[]) => startCommand(process.execPath, [bin, ...args], { cwd, reject: false });

describe('--store memory', () => {
  it('is refused for start, send and the commands that read a store, and works through the serve that holds it', async () => {
    const cwd = testDir('memory-store');
    const started = await cli(cwd, 'start', 'article', '--id', 'm-2', '--store', 'memory');
    expect([started.exitCode, started.stdout]).toEqual([2, '']);
    expect(started.stderr).toBe(
      'statewright: --store memory keeps runs in the memory of one process, and `statewright start` exits when it is done: the run it starts would be gone as it exits. ' +
        'Keep runs in a file (leave --store out for the default sqlite store, or give --store sqlite:<file>), or send this to the `statewright serve --store memory` that holds them: --server <the URL it printed>.',
    );
    const sent = await cli(cwd, 'send', 'm-2', '{"type":"ENQUEUE"}', '--store', 'memory');
    expect([sent.exitCode, sent.stderr]).toEqual([2, expect.stringContaining('and `statewright send` exits when')]);
    for (const command of [['status'], ['explain', 'm-2'], ['history', 'm-2'], ['verify']]) {
      const read = await cli(cwd, ...command, '--store', 'memory');
      expect([read.exitCode, read.stderr], command[0]).toEqual([
        2,
        expect.stringContaining('it would read an empty store of its own, not the runs another process holds.'),
      ]);
    }
    // In the environment it is the same refusal.
    const fromEnv = await startCommand(process.execPath, [bin, 'start', 'execution'], {
      cwd,
      reject: false,
      env: { STATEWRIGHT_STORE: 'memory' },
    });
    expect([fromEnv.exitCode, fromEnv.stderr]).toEqual([2, expect.stringContaining('--store memory keeps runs')]);

    const serve = await startServeProcess(cwd, ['--store', 'memory', '--no-token']);
    try {
      const through = await cli(cwd, 'start', 'execution', '--id', 'm-3', '--store', 'memory', '--server', serve.url);
      expect([through.exitCode, through.stdout]).toEqual([0, `m-3: pending (on ${serve.url})`]);
      const moved = await cli(cwd, 'send', 'm-3', '{"type":"HOLD"}', '--store', 'memory', '--server', serve.url);
      expect([moved.exitCode, moved.stdout]).toEqual([0, `m-3: held (active, 1 events, on ${serve.url})`]);
    } finally {
      await serve.stop();
    }
  });
});
