/**
 * `statewright test` passes on every built-in lifecycle (issue 42's "done when"), the command run
 * in-process: every event buildable, every transition taken, and the first paths of each driven
 * through the runtime beside plain XState with a crash at every commit. `--max-paths 8` keeps
 * the whole test well under a minute on 2 cores (path generation, the session's about 8 s of it,
 * is not bounded by it: every lifecycle's graph is generated whole, within the default
 * 50,000-state bound). Every path of each is `statewright test`'s own job.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { runCli } from '../../src/cli/run-cli.js';

const BUILT_INS = ['execution', 'session', 'review-loop', 'task', 'codon', 'codon-run'];

describe('statewright test on the built-in lifecycles', () => {
  it('names every built-in lifecycle', () => {
    expect(Object.keys(lifecycles).sort()).toEqual([...BUILT_INS].sort());
  });

  it.each(BUILT_INS)('%s passes within the default bounds', { timeout: 120_000 }, async (name) => {
    let out = '';
    let err = '';
    const code = await runCli(['test', name, '--max-paths', '8', '--json'], {
      stdin: Readable.from([]),
      writeOut: (text) => void (out += text),
      writeErr: (text) => void (err += text),
    });
    expect(err).toBe('');
    const report = JSON.parse(out);
    const [lifecycle] = report.lifecycles;
    expect({ unbuildable: lifecycle.unbuildable, uncovered: lifecycle.uncovered }).toEqual({
      unbuildable: [],
      uncovered: [],
    });
    expect(lifecycle.paths.filter((p: { ok: boolean }) => !p.ok)).toEqual([]);
    expect(lifecycle.summary.paths).toBeGreaterThan(0);
    expect([code, report.ok, lifecycle.name]).toEqual([0, true, name]);
  });
});
