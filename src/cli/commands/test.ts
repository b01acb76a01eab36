import { resolve } from 'node:path';
import { Command } from 'commander';
import { UnknownMachineError } from '../../runtime/errors.js';
import { testStoredRuns, type StoredRunResult } from '../../testing/stored-runs.js';
import type { TestStoreOption } from '../../testing/test-store.js';
import { openStore, parseStoreSpec } from '../open-store.js';
import { UsageError } from '../usage-error.js';
import type { PathResult } from '../../testing/drive-path.js';
import { failureText, shortestFailures } from '../../testing/failure-text.js';
import { testLifecycle, type LifecycleReport } from '../../testing/test-lifecycle.js';
import type { Cli } from '../command.js';
import { tableLines, terminalWidth } from '../fit-table.js';
import { wholeNumber } from '../whole-number.js';

interface TestValues {
  readonly store?: string;
  readonly againstStored?: boolean;
  readonly stubActors?: boolean;
  readonly maxPaths: number;
  readonly simplePaths: number;
  readonly stateLimit?: number;
  readonly crash: boolean;
  readonly json?: boolean;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** A path as `--json` prints it. */
const pathJson = (r: PathResult) => ({
  id: r.path.id,
  path: r.path.description,
  ok: !r.failure,
  steps: r.steps,
  restores: r.restores,
  ms: Math.round(r.ms),
  ...(r.failure && { failure: r.failure }),
  ...(r.stopped && { stopped: r.stopped }),
});

export const testCommand = (cli: Cli) =>
  new Command('test')
    .summary(
      'test every path of your lifecycles: generated from each statechart, driven through the runtime beside plain XState, with a crash at every commit',
    )
    .argument('[lifecycles...]', "the lifecycles to test (default: the config's own, else every built-in one)")
    .option(
      '--store <store>',
      'where the runs are kept: sqlite:<file> or json:<dir>, postgres:<url> with --against-stored (the store whose live runs to test), or memory; without it, a fresh store per path in a temporary folder: sqlite (the default), json or memory',
    )
    .option(
      '--against-stored',
      'restore every live run of --store under the current definitions and drive its paths on from there (on a copy): which runs break, and which migration would carry them',
    )
    .option('--stub-actors', "stand-ins for the machines' actors, answering done or error as each path needs")
    .option('--max-paths <n>', 'the most paths per lifecycle (the rest are counted, not run)', wholeNumber(1), 200)
    .option(
      '--simple-paths <n>',
      'add the simple paths (no state twice) of a lifecycle with at most this many (0: none)',
      wholeNumber(0),
      0,
    )
    .option('--state-limit <n>', 'the most states path generation visits (default 50000)', wholeNumber(1))
    .option(
      '--no-crash',
      'no crash and restore at every commit (faster; a context that does not survive a restore goes unseen)',
    )
    .option(
      '--json',
      'print {"ok", "lifecycles": [{name, ok, summary: {paths, steps, restores, failures, ms}, paths: [{id, path, ok, steps, restores, ms, failure?}], unbuildable, uncovered, truncated}]}',
    )
    .action(
      cli.exitsWith(async (names: string[], values: TestValues) => {
        const registry = await cli.registry();
        const known = Object.keys(registry.machines);
        for (const name of names) if (!known.includes(name)) throw new UnknownMachineError(name, known);
        const chosen = names.length ? names : registry.fromConfig.length ? [...registry.fromConfig] : known;
        const write = (text: string) => values.json || cli.io.writeOut(text);
        if (values.againstStored) return againstStored(cli, chosen, values, write);
        const kind = values.store ?? 'sqlite';
        if (kind !== 'sqlite' && kind !== 'json' && kind !== 'memory')
          throw new UsageError(
            `--store ${kind}: the test runs' own store is sqlite, json or memory (a fresh one per path); to test the runs of an existing store, add --against-stored`,
          );
        const tty = !values.json && process.stdout.isTTY === true;
        const reports: LifecycleReport[] = [];
        for (const name of chosen) {
          const test = testLifecycle(registry.machines[name]!, {
            name,
            store: kind === 'json' ? 'json-file' : kind,
            crash: values.crash,
            stubActors: values.stubActors === true,
            actors: registry.actors[name] ?? {},
            maxPaths: values.maxPaths,
            simplePathLimit: values.simplePaths,
            ...(values.stateLimit !== undefined && { stateLimit: values.stateLimit }),
          });
          const total = test.paths.length;
          write(
            `${name}: ${total} path(s)${test.truncated ? ` (${test.truncated} more left out: raise --max-paths)` : ''}\n`,
          );
          const report = await test.run((result, index) => {
            if (tty) process.stdout.write('\r\x1b[K');
            const mark = result.failure ? '✗' : result.stopped ? '·' : '✓';
            write(
              `  ${mark} ${result.path.id.padEnd(5)} ${result.path.description}  (${result.steps} steps, ${result.restores} restores, ${Math.round(result.ms)} ms)\n`,
            );
            if (tty) {
              const done = Math.round(((index + 1) / total) * 30);
              process.stdout.write(`  [${'#'.repeat(done)}${' '.repeat(30 - done)}] ${index + 1}/${total}`);
            }
          });
          if (tty) process.stdout.write('\r\x1b[K');
          reports.push(report);
          for (const failed of shortestFailures(report.results)) write(`\n${failureText(name, failed)}\n`);
          for (const event of report.unbuildable)
            write(`\n${name}: no payload for '${event.type}' (first met in ${event.state}): ${event.reason}\n`);
          for (const { transition, pathToSource } of report.uncovered)
            write(
              `\n${name}: no generated path takes ${transition}${pathToSource ? ` (shortest path to its source: ${pathToSource})` : ''}: its guard refuses every payload built for it; give one in testEvents\n`,
            );
          for (const r of report.results.filter((r) => r.stopped))
            write(`\n${name} ${r.path.id}: stopped at step ${r.stopped!.step}: ${r.stopped!.reason}\n`);
          write('\n');
        }
        const ok = reports.every((r) => r.ok);
        if (values.json) {
          cli.io.writeOut(
            `${JSON.stringify({
              ok,
              lifecycles: reports.map((r) => ({
                name: r.name,
                ok: r.ok,
                summary: { ...r.summary, ms: Math.round(r.summary.ms) },
                paths: r.results.map(pathJson),
                unbuildable: r.unbuildable,
                uncovered: r.uncovered,
                truncated: r.truncated,
              })),
            })}\n`,
          );
          return ok ? 0 : 1;
        }
        const rows = reports.map((r) => [
          r.name,
          String(r.summary.paths),
          String(r.summary.steps),
          String(r.summary.restores),
          String(r.summary.failures + r.unbuildable.length + r.uncovered.length),
          seconds(r.summary.ms),
        ]);
        const columns = ['lifecycle', 'paths', 'steps', 'restores', 'failures', 'time'].map((header) => ({ header }));
        for (const line of tableLines(columns, rows, terminalWidth())) write(`${line}\n`);
        write(ok ? 'Every path passed.\n' : 'Some paths failed: each failure above shows the shortest path to it.\n');
        return ok ? 0 : 1;
      }),
    );

/** `--against-stored`: each lifecycle's live runs in the store, restored under its current definition and driven on. */
async function againstStored(
  cli: Cli,
  chosen: readonly string[],
  values: TestValues,
  write: (text: string) => unknown,
): Promise<number> {
  if (values.store === undefined)
    throw new UsageError(
      '--against-stored tests the runs of a store: name it with --store (sqlite:<file>, json:<dir>, postgres:<url>)',
    );
  const registry = await cli.registry();
  const spec = parseStoreSpec(values.store);
  // The paths run on a copy of the store, never on it: a file or a folder can be copied.
  const copies: TestStoreOption | undefined =
    spec.kind === 'sqlite' || spec.kind === 'json'
      ? { copyOf: { kind: spec.kind === 'sqlite' ? 'sqlite' : 'json-file', location: resolve(spec.where) } }
      : undefined;
  if (!copies)
    write(`${values.store}: its runs are restored, not driven on (only a sqlite file or a json folder is copied)\n`);
  const store = await openStore(values.store, { readOnly: true, create: false });
  const all: Array<{ name: string; runs: StoredRunResult[] }> = [];
  try {
    for (const name of chosen) {
      const lifecycle = registry.machines[name]!;
      write(`${name}:\n`);
      const runs = await testStoredRuns(lifecycle, store, {
        name,
        ...(copies && { copies }),
        maxPaths: values.maxPaths,
        crash: values.crash,
        stubbed: values.stubActors ? Object.keys(lifecycle.machine.implementations.actors ?? {}) : [],
        actors: registry.actors[name] ?? {},
        onRun: (run) => {
          const failed = run.paths.filter((p) => p.failure);
          const mark = run.broken || failed.length ? '✗' : '✓';
          write(
            `  ${mark} ${run.runId} (version ${run.version}, in ${run.state}): ${run.broken ? `breaks: ${run.broken}` : `restores; ${run.paths.length} path(s) on from it, ${failed.length} failed`}\n`,
          );
          if (run.broken) write(`      migration: ${run.migration}\n`);
          for (const failure of shortestFailures(failed))
            write(`${failureText(name, failure).replace(/^/gm, '      ')}\n`);
        },
      });
      if (!runs.length) write('  no live runs\n');
      all.push({ name, runs });
    }
  } finally {
    await store.close();
  }
  const broken = all.flatMap((l) => l.runs.filter((r) => r.broken || r.paths.some((p) => p.failure)));
  if (values.json) {
    cli.io.writeOut(
      `${JSON.stringify({
        ok: broken.length === 0,
        lifecycles: all.map((l) => ({
          name: l.name,
          runs: l.runs.map((r) => ({ ...r, paths: r.paths.map(pathJson) })),
        })),
      })}\n`,
    );
  } else
    write(
      broken.length
        ? `\n${broken.length} stored run(s) break under the current definitions: ${broken.map((r) => r.runId).join(', ')}\n`
        : '\nEvery stored run restores under the current definitions and goes on.\n',
    );
  return broken.length ? 1 : 0;
}
