/** Tiny benchmark helpers: warm up, run several timed rounds, report the median rate. */

export interface Measurement {
  name: string;
  opsPerSecond: number;
  /** Measured against its baseline round by round (see `interleaved`); printed instead of the ratio of the two rates. */
  ratio?: number;
}

export interface Contender {
  name: string;
  opsPerRound: number;
  round: () => void | Promise<void>;
}

/** The middle value (the upper one of an even count). */
export const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(contender: Contender): Promise<number> {
  const start = process.hrtime.bigint();
  await contender.round();
  return contender.opsPerRound / (Number(process.hrtime.bigint() - start) / 1e9);
}

/**
 * Times a baseline and a candidate in alternating rounds, so that a change in the machine's speed
 * while they run (a noisy neighbour, a disk flush) hits both alike: the candidate's ratio is the
 * median of the ratios of each pair of rounds, its rate the median of its rounds. Which of the two
 * goes first alternates from pair to pair.
 */
export async function interleaved(
  baseline: Contender,
  candidate: Contender,
  rounds = 7,
): Promise<[Measurement, Measurement]> {
  const [base, cand] = await interleavedAll(baseline, [candidate], rounds);
  return [base!, cand!];
}

/**
 * `interleaved` for several candidates: each round times the baseline and every candidate once,
 * starting one further along the list each round, so none always goes first or last. Each
 * candidate's ratio is the median of its rate over the baseline's in the same round.
 */
export async function interleavedAll(
  baseline: Contender,
  candidates: readonly Contender[],
  rounds = 7,
): Promise<Measurement[]> {
  const contenders = [baseline, ...candidates];
  for (const contender of contenders) await contender.round(); // warm-up: let the JIT settle before timing
  const rates: number[][] = contenders.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (let k = 0; k < contenders.length; k++) {
      const index = (i + k) % contenders.length;
      rates[index]!.push(await timed(contenders[index]!));
    }
  }
  const base = rates[0]!;
  return contenders.map((contender, index) =>
    index === 0
      ? { name: contender.name, opsPerSecond: median(base) }
      : {
          name: contender.name,
          opsPerSecond: median(rates[index]!),
          ratio: median(rates[index]!.map((rate, i) => rate / base[i]!)),
        },
  );
}

/** Runs `round` (which performs `opsPerRound` operations) repeatedly; returns the median rate. */
export function measure(name: string, opsPerRound: number, round: () => void, rounds = 7): Measurement {
  round(); // warm-up: let the JIT settle before timing
  const rates: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = process.hrtime.bigint();
    round();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    rates.push(opsPerRound / seconds);
  }
  rates.sort((a, b) => a - b);
  return { name, opsPerSecond: rates[Math.floor(rates.length / 2)]! };
}

export async function measureAsync(
  name: string,
  opsPerRound: number,
  round: () => Promise<void>,
  rounds = 5,
): Promise<Measurement> {
  await round();
  const rates: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = process.hrtime.bigint();
    await round();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    rates.push(opsPerRound / seconds);
  }
  rates.sort((a, b) => a - b);
  return { name, opsPerSecond: rates[Math.floor(rates.length / 2)]! };
}

const formatRate = (n: number) =>
  n >= 1e6 ? `${(n / 1e6).toFixed(2)} M/s` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} k/s` : `${n.toFixed(0)} /s`;

const formatRatio = (r: number) => (r >= 0.1 ? r.toFixed(2) : r.toPrecision(2));

/** Prints a Markdown table of rates with each row's ratio to `baseline`. */
export function printTable(title: string, baseline: Measurement, rows: Measurement[], target?: string): void {
  const lines = [`\n### ${title}\n`, `| what | rate | vs ${baseline.name} |`, '|---|---:|---:|'];
  for (const row of rows)
    lines.push(
      `| ${row.name} | ${formatRate(row.opsPerSecond)} | ${formatRatio(row.ratio ?? row.opsPerSecond / baseline.opsPerSecond)}x |`,
    );
  if (target) lines.push('', `Target: ${target}`);
  console.log(lines.join('\n'));
}

/** Prints a Markdown table of figures that are not rates (sizes, times), as given. */
export function printFigures(
  title: string,
  columns: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  target?: string,
): void {
  const lines = [
    `\n### ${title}\n`,
    `| ${columns.join(' | ')} |`,
    `|---|${columns
      .slice(1)
      .map(() => '---:')
      .join('|')}|`,
  ];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  if (target) lines.push('', `Target: ${target}`);
  console.log(lines.join('\n'));
}
