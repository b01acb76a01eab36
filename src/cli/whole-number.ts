import { InvalidArgumentError } from 'commander';

/** An option's parser for a count: a whole number of at least `min`, or commander's usage error. */
export const wholeNumber =
  (min: number) =>
  (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min)
      throw new InvalidArgumentError(`Give a whole number of at least ${min}.`);
    return Number(value);
  };
