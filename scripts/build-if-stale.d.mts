/** The types of build-if-stale.mjs, for the test that runs it. */
export declare const INPUTS: readonly string[];
export declare const OUTPUTS: readonly string[];
export declare function staleness(
  root: string,
  inputs?: readonly string[],
  outputs?: readonly string[],
): string | undefined;
export declare function buildSteps(root: string): string[];
