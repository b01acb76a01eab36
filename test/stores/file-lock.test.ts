/**
 * The lock file of a json-file store (and of a task's STATE.json): a live holder refuses everyone
 * else, and a dead holder's lock is taken over by exactly one of any number of processes racing for
 * it. The race runs in real processes (lock-racer.ts), all released at the same instant, over many
 * trials; every trial must have exactly one winner, and the lock must name it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { processStartTime } from '../../src/os/process-identity.js';
import { acquireLock } from '../../src/stores/json-file/file-lock.js';
import { StoreLockedError } from '../../src/stores/store-errors.js';
import { startProgram } from '../support/child-processes.js';
import { testDir } from './temp-dir.js';

const DEAD_PID = 2 ** 22 + 17; // above Linux's pid_max: no such process
const TRIALS = Number(process.env.STATEWRIGHT_LOCK_TRIALS ?? 100);
const RACERS = 6;

/** A lock left by a holder that is gone: either no such pid, or this pid reused by another process (a different start time). */
function deadHolder(trial: number): string {
  return trial % 2 === 0
    ? JSON.stringify({ pid: DEAD_PID, pidStart: '12345', host: hostname(), since: '2026-01-01T00:00:00.000Z' })
    : JSON.stringify({
        pid: process.pid,
        pidStart: `${processStartTime(process.pid)}9`,
        host: hostname(),
        since: '2026-01-01T00:00:00.000Z',
      });
}

describe('file lock', () => {
  it('refuses a second holder while the first lives, and is free again once released', () => {
    const lock = join(testDir('lock'), 'LOCK');
    const release = acquireLock(lock);
    expect(() => acquireLock(lock)).toThrow(StoreLockedError);
    release();
    acquireLock(lock)();
    expect(readdirSync(join(lock, '..'))).toEqual([]);
  });

  it('takes over the claim of a taker that died mid-takeover, and refuses while a live process is taking over', () => {
    const dir = testDir('lock');
    const lock = join(dir, 'LOCK');
    writeFileSync(lock, deadHolder(0));
    // A first taker linked its claim on that dead lock and died before replacing it.
    const release = acquireLock(lock);
    const mine = readFileSync(lock, 'utf8');
    expect(JSON.parse(mine)).toMatchObject({ pid: process.pid });
    expect(readdirSync(dir)).toEqual(['LOCK']);
    release();
    writeFileSync(lock, deadHolder(0));
    const claim = (bytes: string) =>
      join(dir, `LOCK.takeover-${createHash('sha256').update(bytes).digest('hex').slice(0, 24)}`);
    writeFileSync(claim(deadHolder(0)), deadHolder(1));
    acquireLock(lock)();
    expect(readdirSync(dir)).toEqual([]);
    // A live claimant (this test's own parent process, say) means the lock is being taken: refuse.
    writeFileSync(lock, deadHolder(0));
    writeFileSync(claim(deadHolder(0)), JSON.stringify({ pid: process.ppid, host: hostname() }));
    expect(() => acquireLock(lock)).toThrow(/which is taking over the lock of a process that died/);
    expect(readFileSync(lock, 'utf8')).toBe(deadHolder(0));
  });

  it(`gives a dead holder's lock to exactly one of ${RACERS} processes racing for it, in each of ${TRIALS} trials`, async () => {
    const racers = Array.from({ length: RACERS }, () =>
      startProgram(new URL('./lock-racer.ts', import.meta.url), [], { stdin: 'pipe', stdout: 'pipe', buffer: false }),
    );
    const answers = racers.map((racer) => createInterface({ input: racer.stdout! })[Symbol.asyncIterator]());
    const dirs = testDir('lock-race');
    let doubleWins = 0;
    for (let trial = 0; trial < TRIALS; trial++) {
      const lock = join(dirs, `trial-${trial}`);
      mkdirSync(lock);
      writeFileSync(join(lock, 'LOCK'), deadHolder(trial));
      const startAt = Date.now() + 30;
      for (const racer of racers) racer.stdin!.write(`${join(lock, 'LOCK')} ${startAt}\n`);
      const results = await Promise.all(
        answers.map(
          async (lines) => JSON.parse((await lines.next()).value as string) as { won: boolean; error?: string },
        ),
      );
      const winners = results.flatMap((r, i) => (r.won ? [racers[i]!.pid] : []));
      if (winners.length > 1) doubleWins++;
      for (const r of results) if (!r.won) expect(r.error).toMatch(/^StoreLockedError: /);
      expect(winners, `trial ${trial}: ${JSON.stringify(results)}`).toHaveLength(1);
      expect(JSON.parse(readFileSync(join(lock, 'LOCK'), 'utf8')).pid).toBe(winners[0]);
      expect(readdirSync(lock), 'nothing but the lock is left behind').toEqual(['LOCK']);
    }
    expect(doubleWins).toBe(0);
    for (const racer of racers) racer.stdin!.end();
    await Promise.all(racers);
  });
});
