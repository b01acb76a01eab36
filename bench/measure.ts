/** Tiny benchmark helpers: warm up, run several timed rounds, report the median rate. */

export interface Measurement {
  name: string;
  opsPerSecond: number;
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

export async function measureAsync(name: string, opsPerRound: number, round: () => Promise<void>, rounds = 5): Promise<Measurement> {
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

const formatRate = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)} M/s` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} k/s` : `${n.toFixed(0)} /s`);

const formatRatio = (r: number) => (r >= 0.1 ? r.toFixed(2) : r.toPrecision(2));

/** Prints a Markdown table of rates with each row's ratio to `baseline`. */
export function printTable(title: string, baseline: Measurement, rows: Measurement[], target?: string): void {
  const lines = [`\n### ${title}\n`, '| what | rate | vs ' + baseline.name + ' |', '|---|---:|---:|'];
  for (const row of rows) lines.push(`| ${row.name} | ${formatRate(row.opsPerSecond)} | ${formatRatio(row.opsPerSecond / baseline.opsPerSecond)}x |`);
  if (target) lines.push('', `Target: ${target}`);
  console.log(lines.join('\n'));
}
