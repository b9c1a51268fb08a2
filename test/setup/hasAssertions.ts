/**
 * Every test must assert something: a test that runs no `expect` passes without checking anything,
 * which is how 102 tests (73 of them parity cases looping over an empty list) once passed by doing
 * nothing. Registered in vitest.config.mts for every test file.
 */

import { beforeEach, expect } from "vitest";

beforeEach(() => {
  expect.hasAssertions();
});
