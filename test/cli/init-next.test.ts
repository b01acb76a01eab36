/**
 * `statewright init` in a project with statewright installed locally (node_modules/.bin, as `npm
 * install statewright` leaves it, here linked to this checkout): each command its "Next:" prints
 * runs as printed in a shell in that project, where `statewright` alone is not a command.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { signalGroup } from '../../src/os/process-identity.js';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A project with statewright and xstate in its node_modules, the statewright bin linked where npm links it. */
function localInstall(): string {
  const project = testDir('init-next');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-app', private: true }));
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(root, join(project, 'node_modules', 'statewright'));
  symlinkSync(join(root, 'node_modules', 'xstate'), join(project, 'node_modules', 'xstate'));
  symlinkSync('../statewright/bin/statewright.js', join(project, 'node_modules', '.bin', 'statewright'));
  return project;
}

describe('init in a local install', () => {
  it('prints Next: commands that run as printed', { timeout: 180_000 }, async () => {
    const project = localInstall();
    // The shell's PATH, without any node_modules/.bin: a statewright there would be found by accident.
    const PATH = (process.env.PATH ?? '')
      .split(':')
      .filter((dir) => !dir.includes('node_modules'))
      .join(':');
    const shell = (line: string) =>
      startCommand('sh', ['-c', line], { cwd: project, reject: false, env: { PATH }, extendEnv: false });
    const init = await startCommand(process.execPath, [join(project, 'node_modules', '.bin', 'statewright'), 'init'], {
      cwd: project,
      reject: false,
    });
    expect(init.exitCode).toBe(0);
    const next = init.stdout.split('Next:\n')[1]!.split('\n');
    const commands = next.map((line) => line.match(/^ {2}(\S.*?)\s{2,}\S/)![1]!);
    expect(commands).toEqual([
      'npx statewright check',
      'npx statewright test article',
      'npx statewright serve',
      'npx statewright start article --id post-1',
      'npx statewright send post-1 SUBMIT',
      'npx statewright explain post-1',
    ]);
    const [check, test, serve, ...rest] = commands as [string, string, string, ...string[]];
    expect(await shell(check)).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/machines pass/) });
    expect(await shell(test)).toMatchObject({ exitCode: 0 });
    // serve as printed, on any free port: the default one may be another test's.
    const served = shell(`exec ${serve} --port 0`);
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        served.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (/stop with Ctrl-C/.test(out)) resolve();
        });
        void served.then((result) => reject(new Error(`serve exited: ${result.stderr}`)));
      });
      const [start, send, explain] = rest as [string, string, string];
      expect(await shell(start)).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/^post-1: draft \(on /) });
      expect(await shell(send)).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/^post-1: review /) });
      expect(await shell(explain)).toMatchObject({
        exitCode: 0,
        stdout: expect.stringMatching(/^verdict: waits for an editor$/m),
      });
    } finally {
      if (served.pid) signalGroup(served.pid, 'SIGINT');
      await served;
    }
  });
});
