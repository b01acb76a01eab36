/**
 * The one process-identity module, as the runtime's owner check and the agent actor both use it:
 * pid plus start time names a process; a zombie is gone; another host cannot be judged from here.
 */
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  isProcessAlive,
  isSameProcessAlive,
  processStartTime,
  signalSameProcess,
} from '../../src/os/process-identity.js';
import { endWithTest } from '../support/child-processes.js';

const DEAD_PID = 2 ** 22 + 17; // above Linux's pid_max

describe('process identity', () => {
  it('knows this process by pid and start time, and not by a wrong start time', () => {
    const start = processStartTime(process.pid)!;
    expect(start).toMatch(/\S/);
    expect(isProcessAlive({ pid: process.pid, pidStart: start, host: hostname() })).toBe(true);
    expect(isProcessAlive({ pid: process.pid, pidStart: `${start}0` })).toBe(false); // the pid reused by another process
    expect(isProcessAlive({ pid: process.pid, pidStart: 'unknown' })).toBe(true); // no start time recorded: the pid decides
  });

  it('counts a process that does not exist as gone, and one on another host as alive', () => {
    expect(processStartTime(DEAD_PID)).toBeUndefined();
    expect(isProcessAlive({ pid: DEAD_PID, pidStart: '1' })).toBe(false);
    expect(isProcessAlive({ pid: DEAD_PID, pidStart: '1', host: `not-${hostname()}` })).toBe(true);
  });

  it('counts a zombie (exited, not yet reaped) as gone, though it still has a start time', async () => {
    // The background child exits once its parent has become `sleep`, which never reaps it. (Were it
    // to exit before the `exec`, the shell could reap it first, and there would be no zombie.)
    const child = `until [ "$(cat /proc/$PPID/comm)" = sleep ]; do sleep 0.01; done`;
    const parent = spawn('sh', ['-c', `sh -c '${child}' & echo $!; exec sleep 30`], {
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
    });
    endWithTest(parent.pid);
    try {
      const pid = Number(
        await new Promise<string>((resolve) =>
          parent.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString())),
        ),
      );
      const deadline = Date.now() + 5000;
      while (isSameProcessAlive(pid, undefined) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 5));
      const start = processStartTime(pid);
      expect(start).toMatch(/\S/); // still in the process table
      expect(isProcessAlive({ pid, pidStart: start! })).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('signals a process only while it is the one that started at the given time', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore', detached: true });
    endWithTest(child.pid);
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );
    const start = processStartTime(child.pid!)!;
    // Another start time: the pid reused by another process, which is left alone.
    expect(signalSameProcess(child.pid!, `${start}0`, 'SIGTERM')).toBe(false);
    expect(signalSameProcess(child.pid!, start, 'SIGKILL')).toBe(true);
    // The first signal it got is the second one sent: the first was never sent.
    expect(await exited).toBe('SIGKILL');
    expect(signalSameProcess(child.pid!, start, 'SIGKILL')).toBe(false);
    expect(signalSameProcess(DEAD_PID, '1', 'SIGKILL')).toBe(false);
  });
});
