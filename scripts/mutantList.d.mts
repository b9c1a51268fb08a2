// Types for mutantList.mjs (plain JavaScript, so that CI runs the pass without a build), for test/mutants.test.ts.

export interface Mutant {
  /** Unique; the words given to scripts/mutants.mjs choose mutants by it. */
  id: string;
  /** The mutated file, under server/src. */
  file: string;
  /** The exact source text, found exactly once in the file. */
  from: string;
  /** What replaces it. */
  to: string;
  /** The test files (paths from the repository's root) of which one fails on the mutant. */
  tests: string[];
}

export const MUTANTS: Mutant[];
