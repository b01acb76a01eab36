/**
 * Interleaved rounds: every contender runs one timed round in turn, the order rotating from round
 * to round, so a change in the machine's speed (a busy neighbour, a checkpoint) hits all alike. A
 * contender's rate is the median of its rounds; its ratio to the reference on its store is the
 * median of the ratios of the rounds they ran side by side.
 */

export interface Contender {
  key: string;
  /** The key of the contender its ratio is taken against (itself for the reference). */
  reference: string;
  /** Runs `units` units of work and returns how many steps that was. */
  round(units: number): Promise<number>;
}

export interface Rate {
  stepsPerSecond: number;
  ratio: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(contender: Contender, units: number): Promise<number> {
  const start = performance.now();
  const steps = await contender.round(units);
  return steps / ((performance.now() - start) / 1000);
}

/** How many units make a round of about `seconds` for this contender (after a warm-up). */
async function calibrate(contender: Contender, seconds: number, maxUnits: number): Promise<number> {
  await contender.round(5);
  const start = performance.now();
  await contender.round(10);
  const unitsPerSecond = 10 / ((performance.now() - start) / 1000);
  return Math.max(3, Math.min(maxUnits, Math.round(unitsPerSecond * seconds)));
}

export async function interleavedRounds(
  contenders: Contender[],
  options: { rounds: number; secondsPerRound: number; maxUnits: number },
): Promise<Map<string, Rate>> {
  const units = new Map<string, number>();
  for (const c of contenders) units.set(c.key, await calibrate(c, options.secondsPerRound, options.maxUnits));
  const rates = new Map<string, number[]>(contenders.map((c) => [c.key, []]));
  for (let r = 0; r < options.rounds; r++) {
    for (let k = 0; k < contenders.length; k++) {
      const c = contenders[(k + r) % contenders.length]!;
      rates.get(c.key)!.push(await timed(c, units.get(c.key)!));
    }
  }
  const result = new Map<string, Rate>();
  for (const c of contenders) {
    const own = rates.get(c.key)!;
    const ref = rates.get(c.reference)!;
    result.set(c.key, { stepsPerSecond: median(own), ratio: median(own.map((rate, i) => rate / ref[i]!)) });
  }
  return result;
}
