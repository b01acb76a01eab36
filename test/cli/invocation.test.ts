/** How statewright is run where the person is: the words its printed commands start with. */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { completionHelp } from '../../src/cli/commands/completion.js';
import { invocation } from '../../src/cli/invocation.js';
import { testDir } from '../stores/temp-dir.js';

/** A folder with the package's bin at pkg/bin/statewright.js, and a project and a global prefix linking to it. */
function layout() {
  const dir = testDir('invocation');
  const bin = join(dir, 'pkg', 'bin', 'statewright.js');
  mkdirSync(join(dir, 'pkg', 'bin'), { recursive: true });
  writeFileSync(bin, '');
  const project = join(dir, 'project');
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  mkdirSync(join(project, 'src'));
  symlinkSync(bin, join(project, 'node_modules', '.bin', 'statewright'));
  const global = join(dir, 'global', 'bin');
  mkdirSync(global, { recursive: true });
  symlinkSync(bin, join(global, 'statewright'));
  return { dir, bin, project, global };
}

describe('how statewright is run here', () => {
  it('`npx statewright` in a local install, from the project or a folder in it, even run by npx or npm', () => {
    const { bin, project } = layout();
    expect(invocation({ script: bin, cwd: project, env: { PATH: '/usr/bin' } })).toBe('npx statewright');
    expect(invocation({ script: bin, cwd: join(project, 'src'), env: { PATH: '/usr/bin' } })).toBe('npx statewright');
    // npx and npm run put the project's node_modules/.bin on the PATH of what they run, not of the shell.
    const npxPath = `${join(project, 'node_modules', '.bin')}:/usr/bin`;
    expect(
      invocation({
        script: join(project, 'node_modules', '.bin', 'statewright'),
        cwd: project,
        env: { PATH: npxPath },
      }),
    ).toBe('npx statewright');
  });

  it('`statewright` where that name on PATH is this program (a global install), else npx or node with its path', () => {
    const { dir, bin, project, global } = layout();
    expect(invocation({ script: bin, cwd: project, env: { PATH: `${global}:/usr/bin` } })).toBe('statewright');
    // Another statewright on PATH is not this one.
    const other = join(dir, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'statewright'), '');
    expect(invocation({ script: bin, cwd: dir, env: { PATH: other } })).toBe('node pkg/bin/statewright.js');
    expect(invocation({ script: bin, cwd: dir, env: { PATH: other, npm_command: 'exec' } })).toBe('npx statewright');
    // Not below here: its whole path.
    expect(invocation({ script: bin, cwd: other, env: { PATH: other } })).toBe(`node ${bin}`);
  });

  it("the completion's set-up commands start the same way, and say how to put statewright on PATH where it is not", () => {
    expect(completionHelp('npx statewright')).toContain('`source <(npx statewright completion bash)`');
    expect(completionHelp('npx statewright')).toContain('export PATH="$PWD/node_modules/.bin:$PATH"');
    expect(completionHelp('statewright')).toContain('`source <(statewright completion bash)`');
    expect(completionHelp('statewright')).not.toContain('PATH');
  });
});
