/**
 * The review loop's per-iteration costs beside their naive baselines, in one run:
 * - reading signals from an agent's final output, beside agentpair's upper-cased substring search
 *   (which is wrong: "PASSWORD" passes), on a short review and on a long final report;
 * - writing the run's manifest atomically (temp file, fsync, backup link, rename, directory fsync),
 *   beside agentpair's in-place `writeFile` (which a crash can tear).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeManifest, type Manifest } from '../src/review-loop/manifest.js';
import { parseReview } from '../src/review-loop/review.js';
import { measure, measureAsync, printTable } from './measure.js';

/** agentpair's review.Parse, explicit tokens only: substring search in the upper-cased text. */
function substringVerdict(output: string): string {
  const upper = output.toUpperCase();
  if (['PASS', 'APPROVED', 'LGTM'].some((t) => upper.includes(t))) return 'pass';
  if (['FAIL', 'REJECTED', 'NEEDS CHANGES'].some((t) => upper.includes(t))) return 'fail';
  return 'none';
}

const shortReview =
  'Reviewed the parser change and the new tests.\n\nNEEDS CHANGES: the empty-input case still throws; add a test for it.';
const paragraph =
  'I updated the tokenizer so that an empty input yields no tokens, threaded the new option through the parser, and added tests for both. ' +
  'The CLI prints the usage when no file is given. `npm test` passes locally; see src/parser.ts and test/parser.test.ts for the details.\n\n';
const longReport = `${paragraph.repeat(60)}\`\`\`\nPASS test/parser.test.ts\nFAIL test/old.test.ts (removed)\n\`\`\`\nDONE: the parser handles empty input`;

let sink = 0;
for (const [label, output] of [
  [`a ${shortReview.length}-character review`, shortReview],
  [`a ${(longReport.length / 1024).toFixed(0)} KB final report`, longReport],
] as const) {
  const calls = output.length > 1000 ? 2_000 : 50_000;
  const naive = measure('substring search (agentpair)', calls, () => {
    for (let i = 0; i < calls; i++) sink += substringVerdict(output).length;
  });
  const ours = measure('parseReview (whole tokens, verdict position)', calls, () => {
    for (let i = 0; i < calls; i++) sink += parseReview(output).verdict.length;
  });
  printTable(
    `review-loop signals: ${label}`,
    naive,
    [naive, ours],
    'well under a millisecond per agent run (one parse per iteration)',
  );
}

const dir = await mkdtemp(join(tmpdir(), 'statewright-bench-'));
const manifest: Manifest = {
  version: 1,
  runId: 'bench',
  state: 'working',
  iteration: 1,
  settings: {
    prompt: 'Make the parser handle empty input.',
    maxIterations: 20,
    reviewMode: 'claudex',
    doneSignal: 'DONE',
    primary: { name: 'codex', command: ['codex'] },
    reviewer: { name: 'claude', command: ['claude'] },
  },
  sessions: { primary: 'p-1', reviewer: 'r-1' },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const WRITES = 50;
const inPlace = await measureAsync('writeFile in place (agentpair)', WRITES, async () => {
  for (let i = 0; i < WRITES; i++)
    await writeFile(join(dir, 'plain.json'), JSON.stringify({ ...manifest, iteration: i }, null, 2), { mode: 0o600 });
});
const atomic = await measureAsync('writeManifest (atomic, fsynced)', WRITES, async () => {
  for (let i = 0; i < WRITES; i++) await writeManifest(dir, { ...manifest, iteration: i });
});
printTable(
  'review-loop manifest writes',
  inPlace,
  [inPlace, atomic],
  'a few per iteration, each well under the agent run it records',
);
await rm(dir, { recursive: true, force: true });
if (sink === 0) console.log('(no work done)');
