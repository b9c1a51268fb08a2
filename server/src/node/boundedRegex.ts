/**
 * A regular expression whose tests are bounded in time, for the `/resume` search of `find`.
 *
 * Pi compiles a `re:` query with `new RegExp(pattern, "i")` and tests it against each session's
 * name, id, messages and cwd; a pattern such as `(a+)+$` backtracks exponentially, and Pi's
 * `/resume` hangs on a message of forty `a`s. A search here must end, and V8 stops a running
 * regular expression only through a script's `timeout` (its linear engine, which V8 can fall back
 * to, does not take the `i` flag in Node 20). So each test runs as a tiny script with a timeout:
 * about a tenth of a millisecond a test, paid only by `re:` queries. The first test that runs out
 * gives the search up for the rest of this thread: the same pattern would cost as much on every
 * further session, so the time a search spends on a hostile pattern is bounded by one timeout per
 * thread. The sessions not searched are reported, never silently taken as not matching.
 */

import { createContext, Script } from "node:vm";
import type { SearchRegex } from "../core/sessionSearch";

/** How long one test may run before the search gives the pattern up. */
export const REGEX_TEST_TIMEOUT_MS = 1000;

const context = createContext({ regex: null as RegExp | null, text: "" });
const script = new Script("regex.test(text)");

/** Whether a test in this thread has run out of time: every later one is then given up at once. */
let exhausted = false;

export class BoundedRegex implements SearchRegex {
  /** Whether a test of this regex was given up: the session's search is incomplete. */
  gaveUp = false;

  constructor(private readonly regex: RegExp) {}

  test(text: string): boolean {
    if (exhausted) {
      this.gaveUp = true;
      return false;
    }
    context.regex = this.regex;
    context.text = text;
    try {
      return script.runInContext(context, { timeout: REGEX_TEST_TIMEOUT_MS }) === true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ERR_SCRIPT_EXECUTION_TIMEOUT") throw error;
      exhausted = true;
      this.gaveUp = true;
      return false;
    } finally {
      // The text can be a session's 64 MiB of messages: the context must not keep it alive.
      context.regex = null;
      context.text = "";
    }
  }
}
