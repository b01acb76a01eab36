/**
 * The sample of the crash-boundary suite done with real SIGKILLs: a child process
 * (crash-boundary-child.ts) drives a run to a commit boundary on a real store, reports that it is
 * there (before the commit is durable, or right after), and is killed with SIGKILL. The same checks
 * as the in-process suite (crash-at-every-boundary.test.ts) then run on the store it left: the run
 * is at the step before or at it (or where its recovery takes it), replays, goes on to the end of
 * its path, and its side effects (the child appends them to a file as it makes them) happen once.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LifecycleName } from '../../machines/index.js';
import { signalGroup } from '../../src/os/process-identity.js';
import type { CorruptionReport } from '../../src/stores/index.js';
import type { Death } from '../../src/testing/dying-store.js';
import type { Effect } from '../support/recording-actors.js';
import { startProgram } from '../support/child-processes.js';
import { testDir } from '../stores/temp-dir.js';
import { storesUnderTest } from './boundary-stores.js';
import { lifecycleBoundaries, type Boundary } from './commit-boundaries.js';
import { crashBoundaries, recoveryRule, type Caught, type Dying } from './crash-boundary.js';

const CHILD = new URL('./crash-boundary-child.ts', import.meta.url);

/** Kills the child at each boundary (one child per boundary) and returns what it reported it caught. */
async function dieBySigkill(storeName: string, dying: Dying): Promise<Caught> {
  const caught = new Map<string, { seq: number; written: boolean }>();
  for (const b of dying.boundaries) {
    const dir = testDir('boundary-kill');
    const planFile = join(dir, 'plan.json');
    const effectsFile = join(dir, 'effects.jsonl');
    const plan = {
      name: dying.name,
      runId: dying.runIdOf(b),
      input: b.plan.input,
      rounds: b.plan.rounds.slice(0, b.commit + 1),
      commit: b.commit,
      death: dying.death,
      host: dying.host,
    };
    writeFileSync(planFile, JSON.stringify(plan));
    writeFileSync(effectsFile, '');
    const child = startProgram(CHILD, [storeName, dying.location, planFile, effectsFile], {
      stdout: 'ignore',
      stderr: 'pipe',
      reject: false,
    });
    let stderr = '';
    const report = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const line = /^caught (.*)$/m.exec(stderr);
        if (line) resolve(line[1]!);
      });
      void child.then(() => reject(new Error(`the child ended before it reached its boundary:\n${stderr}`)));
    });
    signalGroup(child.pid!, 'SIGKILL');
    // Waiting for the exit also reaps it: its pid is gone when the store is opened again.
    expect((await child).signal).toBe('SIGKILL');
    for (const [runId, at] of JSON.parse(report) as Array<[string, { seq: number; written: boolean }]>)
      caught.set(runId, at);
    const effects = readFileSync(effectsFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Effect);
    dying.ledger.add(effects);
  }
  return caught;
}

/**
 * The sample, the same on every store: a boundary of each lifecycle with side effects, where the
 * actors have work running, killed at a commit (the middle one of those), and for the task the
 * one where a check is running, which its recovery interrupts.
 */
const sample: Array<{ name: LifecycleName; death: Death; pick: (b: Boundary) => boolean }> = [
  { name: 'review-loop', death: 'after-durable', pick: (b) => b.plan.running[b.commit]!.length > 0 },
  { name: 'task', death: 'after-durable', pick: (b) => recoveryRule.task(b.plan.snapshots[b.commit]!) !== undefined },
  { name: 'session', death: 'before-durable', pick: (b) => b.plan.running[b.commit - 1]!.length > 0 },
  { name: 'codon', death: 'before-durable', pick: (b) => b.plan.running[b.commit - 1]!.length > 0 },
];

const kills: string[] = [];

describe('a SIGKILL at a commit boundary (a sample of the crash-boundary suite)', () => {
  const reports: CorruptionReport[] = [];
  for (const [storeName, kind] of Object.entries(storesUnderTest(reports))) {
    it(`${storeName}: each run is at the step before or at it, replays, goes on, and its effects happen once`, async () => {
      const failures: string[] = [];
      for (const { name, death, pick } of sample) {
        const candidates = lifecycleBoundaries(name, 'transition').filter((b) => b.commit >= 2 && pick(b));
        expect(candidates.length, `${name} has a boundary to kill at`).toBeGreaterThan(0);
        const boundary = candidates[Math.floor(candidates.length / 2)]!;
        const result = await crashBoundaries(name, [boundary], death, kind, (dying) => dieBySigkill(storeName, dying));
        failures.push(...result.failures);
        expect(result.tally.boundaries).toBe(1);
        kills.push(`${storeName} ${name} ${death} at commit ${boundary.commit} of [${boundary.plan.description}]`);
      }
      expect(failures).toEqual([]);
      // A kill between whole writes: nothing torn that the json-file store had to repair.
      expect(reports).toEqual([]);
    });
  }
  afterAll(() => {
    if (kills.length) console.log(`SIGKILLs at commit boundaries (${kills.length}):\n${kills.join('\n')}`);
  });
});
